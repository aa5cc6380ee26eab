// Package sqlite holds what only SQLite needs: opening a file with the
// settings this service relies on (open.go), the write path — one writer
// at a time from this process (gate.go), group commit as a layer on top of
// it (group.go), and ent's driver over both (driver.go) —, the log's
// checkpoints (checkpoint.go), the process-wide bound on SQLite's memory
// (memory.go), the synchronous mode that decides what a commit survives
// (durability.go), and backup and restore (backup.go).
//
// internal/database picks this package for a DSN that is not a postgres://
// URL and puts the ent client over DB.Driver; nothing here knows the
// service's domain.
package sqlite
