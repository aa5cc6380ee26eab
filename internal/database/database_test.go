package database

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"logistics/internal/migrations"
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

// TestMigrationsTakeTurns: several handles on one database (instances
// starting together) migrate at once; the migration lock lets one apply the
// files and the others find nothing left to do, so each file is applied
// and recorded once. Run on SQLite, and on PostgreSQL when
// LOGISTICS_TEST_POSTGRES is set (its advisory lock).
func TestMigrationsTakeTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := os.Getenv("LOGISTICS_TEST_POSTGRES")
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "m.db")
	} else {
		dsn = freshPostgres(t, dsn)
	}
	dbs := make([]*DB, 3)
	for i := range dbs {
		db, err := Open(ctx, dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	errs := make(chan error, len(dbs))
	for _, db := range dbs {
		go func() { errs <- db.Migrate(ctx) }()
	}
	for range dbs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	dir, err := migrations.Dir(dbs[0].Dialect)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := dir.Files()
	var n int
	if err := dbs[0].SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+migrations.RevisionsTable).Scan(&n); err != nil || n != len(files) {
		t.Fatalf("%d revisions recorded (%v), want one per file (%d)", n, err, len(files))
	}
}

// freshPostgres creates an empty database on admin's server, dropped at
// the end of the test, and returns its URL.
func freshPostgres(t *testing.T, admin string) string {
	t.Helper()
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "lt_migrate_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck
		db.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
