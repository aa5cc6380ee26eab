package database

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenAppliesSettings opens the suite's database (SQLite, or PostgreSQL
// when LOGISTICS_TEST_POSTGRES is set) and checks the settings we rely on.
func TestOpenAppliesSettings(t *testing.T) {
	ctx := context.Background()
	dsn := os.Getenv("LOGISTICS_TEST_POSTGRES")
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "x.db")
	}
	db, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if IsPostgres(dsn) {
		var v string
		if err := db.SQL.QueryRowContext(ctx, "SHOW random_page_cost").Scan(&v); err != nil || v != "1.1" {
			t.Fatalf("random_page_cost = %q, %v", v, err)
		}
		return
	}
	var mode string
	var fk int
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v", fk, err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationsTakeTurns: a migration waits while another of this process
// holds the turn (ent's migration completes package-level tables in place:
// two at once are a data race, which crashed CI once), then runs; and
// migrations of several databases started together all complete. Whether
// the waiting one ran is read from its database (no table while the turn is
// held), not from the clock alone: on a slow machine a migration that
// ignored the turn might not have finished in the window, but it would have
// created its first table.
func TestMigrationsTakeTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := make([]*DB, 3)
	for i := range dbs {
		db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	tables := func(db *DB) int {
		var n int
		if err := db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	migrating.Lock() // another migration holds the turn
	done := make(chan error, 1)
	go func() { done <- dbs[0].Migrate(ctx) }()
	select {
	case err := <-done:
		migrating.Unlock()
		t.Fatalf("a migration ran while another held the turn (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	if n := tables(dbs[0]); n != 0 {
		migrating.Unlock()
		t.Fatalf("a migration created %d tables while another held the turn", n)
	}
	migrating.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tables(dbs[0]) == 0 {
		t.Fatal("the migration created no table once it had the turn")
	}
	// The other two start behind a held turn, so both are ready to run the
	// moment it is released: without the turn they would overlap (the race
	// detector, or a fatal concurrent map write, reports it).
	migrating.Lock()
	errs := make(chan error, len(dbs)-1)
	for _, db := range dbs[1:] {
		go func() { errs <- db.Migrate(ctx) }()
	}
	time.Sleep(50 * time.Millisecond) // both are waiting for the turn
	migrating.Unlock()
	for range dbs[1:] {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, db := range dbs[1:] {
		if tables(db) == 0 {
			t.Fatalf("database %d has no table after its migration", i+1)
		}
	}
}
