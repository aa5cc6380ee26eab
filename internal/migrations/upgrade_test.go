package migrations_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/migrations"
	"logistics/internal/migrations/upgradetest"
)

// TestUpgradeFromPreviousRelease opens, with the current code, a sandbox
// database that the last release before versioned migrations made (its
// automatic migration) and filled with its demo data — SQLite from a
// committed file, PostgreSQL (under LOGISTICS_TEST_POSTGRES) from a
// committed pg_dump — and reads every row back through the REST API:
// each equals what that release answered when the fixture was built
// (testdata/*-golden.json; fields the current API added are allowed), and
// the database is recorded as adopted at the first migration.
// scripts/migration-fixtures.sh rebuilds the fixtures.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		b, err := os.ReadFile("testdata/sqlite-sandbox.db")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "sandbox.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		upgradeAndCompare(t, path, "testdata/sqlite-golden.json")
	})
	t.Run("postgres", func(t *testing.T) {
		if !apptest.Postgres() {
			t.Skip("LOGISTICS_TEST_POSTGRES is not set")
		}
		psql, err := exec.LookPath("psql")
		if err != nil {
			t.Skip("psql is not installed: the dump cannot be loaded")
		}
		dsn := apptest.DSN(t, "upgrade")
		var stderr bytes.Buffer
		cmd := exec.Command(psql, "-q", "-v", "ON_ERROR_STOP=1", "-f", "testdata/postgres-sandbox.sql", dsn)
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("load the dump: %v\n%s", err, stderr.String())
		}
		upgradeAndCompare(t, dsn, "testdata/postgres-golden.json")
	})
}

func upgradeAndCompare(t *testing.T, sandbox, golden string) {
	t.Helper()
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SandboxDB = sandbox }})
	env := s.App.Envs.Get(environment.Sandbox)
	st, err := migrations.ReadStatus(context.Background(), env.DB.SQL, env.DB.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Applied) == 0 || !st.Applied[0].Baseline || st.Current() != st.Latest {
		t.Fatalf("the fixture was not adopted and brought up to date: %+v", st)
	}
	got, err := upgradetest.Capture(s.Client, s.SandboxURL, s.Keys[environment.Sandbox])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]json.RawMessage
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want["items"]) == 0 || len(want["orders"]) == 0 {
		t.Fatalf("the golden %s holds no demo data", golden)
	}
	for list, rows := range want {
		have := got[list]
		if len(have) != len(rows) {
			t.Errorf("%s: %d rows, the previous release had %d", list, len(have), len(rows))
			continue
		}
		for i := range rows {
			var w, h map[string]any
			if err := json.Unmarshal(rows[i], &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(have[i], &h); err != nil {
				t.Fatal(err)
			}
			for k, v := range w {
				a, _ := json.Marshal(v)
				c, _ := json.Marshal(h[k])
				if !bytes.Equal(a, c) {
					t.Errorf("%s row %d (%v): %s = %s, the previous release had %s", list, i, w["id"], k, c, a)
				}
			}
		}
	}
	for list := range got {
		if _, ok := want[list]; !ok {
			t.Errorf("%s: read after the upgrade, not in the golden", list)
		}
	}
}
