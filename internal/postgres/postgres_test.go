package postgres

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"logistics/internal/dbtest"
)

func TestDSNAddsPlannerDefaults(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@db:5432/x?sslmode=disable": "postgres://u:p@db:5432/x?random_page_cost=1.1&sslmode=disable",
		"postgres://db/x?random_page_cost=4":       "postgres://db/x?random_page_cost=4",
		"postgresql://db/x":                        "postgresql://db/x?random_page_cost=1.1",
	} {
		if got := withDefaults(in); got != want {
			t.Errorf("withDefaults(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPostgresDurability reads fsync and synchronous_commit from a
// throwaway cluster started with fsync=off: not power-safe, with a
// warning; a session with synchronous_commit=off (from its DSN) adds its
// own; and a cluster with PostgreSQL's defaults is safe.
func TestDurability(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := dbtest.Cluster(t, "fsync=off")
	db, err := Open(ctx, dsn, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := db.Durability
	db.SQL.Close()
	if d.PowerSafe || d.Mode != "fsync=off synchronous_commit=on" || !strings.Contains(d.Warning, "fsync is off") || strings.Contains(d.Warning, "synchronous_commit") {
		t.Errorf("fsync=off: %+v", d)
	}

	u, _ := url.Parse(dsn)
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	db, err = Open(ctx, u.String(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d = db.Durability
	db.SQL.Close()
	if d.PowerSafe || d.Mode != "fsync=off synchronous_commit=off" || !strings.Contains(d.Warning, "fsync is off") || !strings.Contains(d.Warning, "synchronous_commit is off") {
		t.Errorf("fsync=off, synchronous_commit=off: %+v", d)
	}

	// A cluster with PostgreSQL's defaults keeps commits.
	on := dbtest.Cluster(t)
	db, err = Open(ctx, on, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d = db.Durability
	db.SQL.Close()
	if !d.PowerSafe || d.Mode != "fsync=on synchronous_commit=on" || d.Warning != "" {
		t.Errorf("defaults: %+v", d)
	}
	if env := os.Getenv("LOGISTICS_TEST_POSTGRES"); env != "" {
		db, err := Open(ctx, env, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var fsync string
		if err := db.SQL.QueryRowContext(ctx, "SHOW fsync").Scan(&fsync); err != nil {
			t.Fatal(err)
		}
		if db.Durability.PowerSafe != (fsync == "on") {
			t.Errorf("the suite's PostgreSQL (fsync=%s): %+v", fsync, db.Durability)
		}
		db.SQL.Close()
	}
}
