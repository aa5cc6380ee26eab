package migrations

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// RevisionsTable records the files applied to a database: one row per
// file, its version, name, checksum (from atlas.sum) and when it was applied;
// baseline is 1 for the first file of a database adopted from an earlier
// release, whose schema was already there. It is bookkeeping, not part of
// the files.
const RevisionsTable = "schema_revisions"

const createRevisions = "CREATE TABLE IF NOT EXISTS " + RevisionsTable + ` (
	version TEXT PRIMARY KEY,
	description TEXT NOT NULL,
	checksum TEXT NOT NULL,
	applied_at TEXT NOT NULL,
	baseline INTEGER NOT NULL DEFAULT 0
)`

// Lock is the PostgreSQL advisory-lock key that serialises migrations of
// instances starting together ("logi" in ASCII). On SQLite the write lock
// of BEGIN IMMEDIATE does the same across processes.
const Lock = 0x6c6f6769

// querier is what a migration runs on: a transaction (PostgreSQL) or the
// one connection holding SQLite's write lock.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Revision is one applied file.
type Revision struct {
	Version, Description, Checksum string
	AppliedAt                      time.Time
	Baseline                       bool
}

// Status is where a database stands against the binary's files.
type Status struct {
	Dialect string
	// Applied are the recorded revisions, oldest first.
	Applied []Revision
	// Pending are the files not applied yet, in order (names).
	Pending []string
	// Latest is the version of the binary's last file.
	Latest string
	// Unversioned: the database has tables but no revisions (made by the
	// automatic migration of an earlier release): the first apply adopts
	// it.
	Unversioned bool
	// Newer names recorded versions this binary has no file of: the
	// database was migrated by a newer release.
	Newer []string
}

// Current is the version of the last applied file ("" none).
func (s *Status) Current() string {
	if len(s.Applied) == 0 {
		return ""
	}
	return s.Applied[len(s.Applied)-1].Version
}

// NewerError refuses a database migrated by a newer binary.
type NewerError struct{ Database, Binary string }

func (e *NewerError) Error() string {
	return fmt.Sprintf("the database's schema is at migration %s, newer than this binary knows (its last migration is %s): run the release that migrated it, or a newer one", e.Database, e.Binary)
}

// ReadStatus reads where db stands; it changes nothing.
func ReadStatus(ctx context.Context, db *sql.DB, dia string) (*Status, error) {
	dir, err := Dir(dia)
	if err != nil {
		return nil, err
	}
	return status(ctx, db, dia, dir)
}

func status(ctx context.Context, q querier, dia string, dir migrate.Dir) (*Status, error) {
	files, err := dir.Files()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("migrations: the binary holds no migration file")
	}
	st := &Status{Dialect: dia, Latest: files[len(files)-1].Version()}
	has, err := tableExists(ctx, q, dia, RevisionsTable)
	if err != nil {
		return nil, err
	}
	if has {
		rows, err := q.QueryContext(ctx, "SELECT version, description, checksum, applied_at, baseline FROM "+RevisionsTable+" ORDER BY version")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var r Revision
			var at string
			var base int
			if err := rows.Scan(&r.Version, &r.Description, &r.Checksum, &at, &base); err != nil {
				return nil, err
			}
			r.AppliedAt, _ = time.Parse(time.RFC3339Nano, at)
			r.Baseline = base != 0
			st.Applied = append(st.Applied, r)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	} else {
		n, err := countTables(ctx, q, dia)
		if err != nil {
			return nil, err
		}
		st.Unversioned = n > 0
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f.Version()] = true
	}
	applied := map[string]bool{}
	for _, r := range st.Applied {
		applied[r.Version] = true
		if !known[r.Version] {
			st.Newer = append(st.Newer, r.Version)
		}
	}
	for i, f := range files {
		if applied[f.Version()] || (i == 0 && st.Unversioned) {
			continue
		}
		st.Pending = append(st.Pending, f.Name())
	}
	return st, nil
}

// Apply brings db to the binary's last migration under the migration lock:
// it refuses a database migrated by a newer binary (NewerError), adopts a
// database of an earlier release's automatic migration (its schema must be
// the first file's, adopt.go), then runs each pending file and its Go data
// step (data.go) and records it, all in one transaction: a failure leaves
// the database as it was. It returns the names of the files it applied.
func Apply(ctx context.Context, db *sql.DB, dia string) ([]string, error) {
	dir, err := Dir(dia)
	if err != nil {
		return nil, err
	}
	// A file edited after atlas.sum was written is not run.
	if err := migrate.Validate(dir); err != nil {
		return nil, fmt.Errorf("migrations: %s files: %w", dia, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	switch dia {
	case dialect.Postgres:
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", Lock); err != nil {
			return nil, fmt.Errorf("migrations: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", Lock) //nolint:errcheck
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback() //nolint:errcheck
		names, _, err := apply(ctx, tx, dia, dir)
		if err != nil {
			return nil, err
		}
		return names, tx.Commit()
	case dialect.SQLite:
		return applySQLite(ctx, conn, dir)
	}
	return nil, fmt.Errorf("migrations: dialect %q", dia)
}

// applySQLite runs the migration on one connection with foreign keys off
// and SQLite's write lock held (BEGIN IMMEDIATE), the procedure SQLite
// documents for schema changes: Atlas rebuilds a table to change a column
// (create the new one, copy, drop the old, rename), and with foreign keys
// on, dropping the old table would delete or refuse through its
// references. PRAGMA foreign_keys is a no-op inside a transaction (the
// PRAGMA lines Atlas writes around a rebuild), so it is set before BEGIN;
// when anything was written, PRAGMA foreign_key_check before COMMIT
// refuses a migration that left a reference dangling (checkForeignKeys).
// The connection gets its foreign keys back before it returns to the pool.
func applySQLite(ctx context.Context, conn *sql.Conn, dir migrate.Dir) (names []string, err error) {
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return nil, err
	}
	defer func() {
		if _, ferr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON"); ferr != nil {
			// Not back in the pool without them (Open checks the first
			// connection only).
			conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck
			err = errors.Join(err, ferr)
		}
	}()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return nil, fmt.Errorf("migrations: lock: %w", err)
	}
	done := false
	defer func() {
		if !done {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck
		}
	}()
	names, wrote, err := apply(ctx, conn, dialect.SQLite, dir)
	if err != nil {
		return nil, err
	}
	if wrote {
		if err := checkForeignKeys(ctx, conn); err != nil {
			return nil, err
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, err
	}
	done = true
	if wrote {
		// After COMMIT, when the pages a rebuild or the check dirtied are
		// clean and can go (checkForeignKeys says why they must).
		if _, err := conn.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// checkForeignKeys refuses a migration that left a reference dangling. It
// reads every row that has a foreign key and its parent's index — the
// whole database, seconds at scale 1 — so it runs only when a migration
// or an adoption wrote something, never at an ordinary start. The pages it
// reads stay in this connection's cache, which the pool keeps: up to
// SQLite's process-wide soft bound (sqlite.DefaultMemory), where every
// other connection then recycles its own few pages on each read (a read
// syscall per page) and a writer spills to the log early; applySQLite
// gives them back with PRAGMA shrink_memory after COMMIT.
func checkForeignKeys(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var dangling []string
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		dangling = append(dangling, fmt.Sprintf("%s row %d → %s", table, rowid.Int64, parent))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(dangling) > 0 {
		return fmt.Errorf("migrations: the migration left references dangling (%s): not applied", strings.Join(dangling, ", "))
	}
	return nil
}

func apply(ctx context.Context, q querier, dia string, dir migrate.Dir) (names []string, wrote bool, err error) {
	st, err := status(ctx, q, dia, dir)
	if err != nil {
		return nil, false, err
	}
	if len(st.Newer) > 0 {
		return nil, false, &NewerError{Database: st.Newer[len(st.Newer)-1], Binary: st.Latest}
	}
	files, err := dir.Files()
	if err != nil {
		return nil, false, err
	}
	sum, err := dir.Checksum()
	if err != nil {
		return nil, false, err
	}
	for _, r := range st.Applied {
		if want, _ := sum.SumByName(nameOf(files, r.Version)); want != "" && want != r.Checksum {
			return nil, false, fmt.Errorf("migrations: migration %s was applied as %s, and this binary's file of it is %s: a released migration was edited; restore it and write a new one", r.Version, r.Checksum, want)
		}
	}
	if st.Unversioned {
		if err := adopt(ctx, q, dia, files[0]); err != nil {
			return nil, false, err
		}
	}
	if _, err := q.ExecContext(ctx, createRevisions); err != nil {
		return nil, false, err
	}
	ph := func(n int) string { return placeholder(dia, n) }
	record := func(f migrate.File, baseline int) error {
		h, err := sum.SumByName(f.Name())
		if err != nil {
			return err
		}
		_, err = q.ExecContext(ctx, "INSERT INTO "+RevisionsTable+" (version, description, checksum, applied_at, baseline) VALUES ("+
			ph(1)+", "+ph(2)+", "+ph(3)+", "+ph(4)+", "+ph(5)+")",
			f.Version(), f.Desc(), h, time.Now().UTC().Format(time.RFC3339Nano), baseline)
		return err
	}
	if st.Unversioned {
		if err := record(files[0], 1); err != nil {
			return nil, false, err
		}
		// What the earlier release's migration did at every start, once
		// more: its counter rows and event numbering.
		if err := eventLogRows(ctx, q, dia); err != nil {
			return nil, false, err
		}
	}
	pending := map[string]bool{}
	for _, n := range st.Pending {
		pending[n] = true
	}
	for _, f := range files {
		if !pending[f.Name()] {
			continue
		}
		stmts, err := f.Stmts()
		if err != nil {
			return nil, false, fmt.Errorf("migrations: %s: %w", f.Name(), err)
		}
		step, hasStep := dataSteps[f.Desc()]
		if !hasStep && isDestructive(f) {
			return nil, false, fmt.Errorf("migrations: %s is marked destructive and has no data step: register one in internal/migrations/data.go", f.Name())
		}
		if step.Before != nil {
			if err := step.Before(ctx, q, dia); err != nil {
				return nil, false, fmt.Errorf("migrations: %s: data step before it: %w", f.Name(), err)
			}
		}
		for _, s := range stmts {
			if dia == dialect.SQLite && isForeignKeysPragma(s) {
				continue // set around the whole migration (applySQLite)
			}
			if _, err := q.ExecContext(ctx, s); err != nil {
				return nil, false, fmt.Errorf("migrations: %s: %w (in %q)", f.Name(), err, short(s))
			}
		}
		if step.After != nil {
			if err := step.After(ctx, q, dia); err != nil {
				return nil, false, fmt.Errorf("migrations: %s: data step after it: %w", f.Name(), err)
			}
		}
		if err := record(f, 0); err != nil {
			return nil, false, err
		}
		names = append(names, f.Name())
	}
	return names, st.Unversioned || len(names) > 0, nil
}

func nameOf(files []migrate.File, version string) string {
	for _, f := range files {
		if f.Version() == version {
			return f.Name()
		}
	}
	return ""
}

func isForeignKeysPragma(s string) bool {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.HasPrefix(s, "pragma foreign_keys")
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func tableExists(ctx context.Context, q querier, dia, name string) (bool, error) {
	var n int
	var err error
	if dia == dialect.Postgres {
		err = q.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1", name).Scan(&n)
	} else {
		err = q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	}
	return n > 0, err
}

// countTables counts the tables of the database's schema (SQLite's own
// left out).
func countTables(ctx context.Context, q querier, dia string) (int, error) {
	var n int
	var err error
	if dia == dialect.Postgres {
		err = q.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'").Scan(&n)
	} else {
		err = q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").Scan(&n)
	}
	return n, err
}
