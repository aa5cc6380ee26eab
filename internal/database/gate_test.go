package database

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/internal/apperr"
)

// TestWriteGate: one transaction at a time gets through; a writer that
// waits out the limit gets 503 database_busy (not SQLite's busy error, a
// 500), a cancelled one its context's error; every waiting writer gets in
// once the holder ends, committed or rolled back.
func TestWriteGate(t *testing.T) {
	db, err := sql.Open("sqlite3", sqliteDSN(filepath.Join(t.TempDir(), "gate.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE n (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	g := &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), gate: newWriteGate(100 * time.Millisecond)}
	ctx := context.Background()

	held, err := g.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Tx(ctx)
	if e := apperr.From(err); e == nil || e.Code != "database_busy" || e.Kind.Status() != 503 {
		t.Fatalf("a writer past the limit: %v, want 503 database_busy", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.Tx(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled writer: %v", err)
	}
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}

	// 32 writers at once: all commit, none waits out the limit.
	g = &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), gate: newWriteGate(10 * time.Second)}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			tx, err := g.Tx(ctx)
			if err != nil {
				errs <- err
				return
			}
			if err := tx.Exec(ctx, "INSERT INTO n (v) VALUES (1)", []any{}, nil); err != nil {
				_ = tx.Rollback()
				errs <- err
				return
			}
			errs <- tx.Commit()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM n").Scan(&n); err != nil || n != 32 {
		t.Fatalf("rows: %d %v", n, err)
	}
}
