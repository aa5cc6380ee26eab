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
	g := &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newWriteGate(100 * time.Millisecond)}
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
	g = &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newWriteGate(10 * time.Second)}
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

// TestWriteTxEnds: a gated transaction (BEGIN IMMEDIATE on a connection of
// its own) keeps its writes only when it commits, ends once, gives its
// connection back with no transaction open even when COMMIT fails (a
// deferred foreign key), and is not cut short by its context ending after
// it began.
func TestWriteTxEnds(t *testing.T) {
	db, err := sql.Open("sqlite3", sqliteDSN(filepath.Join(t.TempDir(), "tx.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every transaction on the same connection
	for _, q := range []string{
		"CREATE TABLE p (id INTEGER PRIMARY KEY)",
		"CREATE TABLE c (pid INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	g := &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newWriteGate(time.Second)}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(ctx context.Context, tx dialect.Tx, q string) {
		t.Helper()
		if err := tx.Exec(ctx, q, []any{}, nil); err != nil {
			t.Fatal(err)
		}
	}

	// Rolled back: nothing stays; a second end is ErrTxDone.
	tx, err := g.Tx(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	insert(context.Background(), tx, "INSERT INTO p (id) VALUES (1)")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("commit after rollback: %v, want ErrTxDone", err)
	}
	if n := count("p"); n != 0 {
		t.Fatalf("%d rows after a rollback", n)
	}

	// COMMIT fails on the deferred key: the error is returned, nothing
	// stays, and the connection takes the next transaction.
	tx, err = g.Tx(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	insert(context.Background(), tx, "INSERT INTO c (pid) VALUES (7)")
	if err := tx.Commit(); err == nil {
		t.Fatal("COMMIT with a dangling deferred key succeeded")
	}
	if n := count("c"); n != 0 {
		t.Fatalf("%d rows after a failed commit", n)
	}

	// A context that ends after BEGIN does not cut the transaction short.
	ctx, cancel := context.WithCancel(context.Background())
	tx, err = g.Tx(ctx)
	if err != nil {
		t.Fatalf("the connection after a failed commit: %v", err)
	}
	insert(ctx, tx, "INSERT INTO p (id) VALUES (2)")
	cancel()
	insert(ctx, tx, "INSERT INTO p (id) VALUES (3)")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count("p"); n != 2 {
		t.Fatalf("%d rows committed, want 2", n)
	}
}

// TestWriteLockFigures: the gate counts the transactions it lets in, the
// time they held it (at least what a holder slept inside) and the time a
// second writer waited behind the first.
func TestWriteLockFigures(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before, ok := db.WriteLock()
	if !ok {
		t.Fatal("no write lock figures on SQLite")
	}
	held, err := db.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		tx, err := db.Client.Tx(ctx) // waits behind held
		if err == nil {
			err = tx.Rollback()
		}
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	after, _ := db.WriteLock()
	if n := after.Entries - before.Entries; n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
	if d := after.Held - before.Held; d < 50*time.Millisecond {
		t.Errorf("held %v, want at least the 50 ms the first holder kept it", d)
	}
	// How long the second writer queued depends on when it got to the
	// gate (up to the 50 ms); that it counted is what is checked.
	if d := after.Wait - before.Wait; d <= 0 {
		t.Errorf("waited %v", d)
	}
}
