package rest

import (
	"net/http"

	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/export"
)

// staleReads marks the reads of the routes that accept a replica's
// staleness by default — aggregates and exports, and a list answered as
// an export (Accept: text/csv, format=ndjson) — for the read-replica
// router (internal/database/replica.go); the client's Prefer: read=primary
// still sends them to the primary. Every other route reads from the
// primary unless the client sends Prefer: read=replica.
func staleReads(kind opKind, h http.Handler) http.Handler {
	switch kind {
	case opAggregate, opExport, opAggregateExport:
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if env := environment.FromContext(r.Context()); env != nil && env.DB.Replica != nil {
				r = r.WithContext(database.AcceptStale(r.Context()))
			}
			h.ServeHTTP(w, r)
		})
	case opList, opPlainList:
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if env := environment.FromContext(r.Context()); env != nil && env.DB.Replica != nil {
				if f, err := negotiate(r); err == nil && f != export.JSON {
					r = r.WithContext(database.AcceptStale(r.Context()))
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	return h
}
