package app_test

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/dbtest"
	"logistics/internal/environment"
)

type readyz struct {
	Ready      bool `json:"ready"`
	Durability map[string]struct {
		Mode      string `json:"mode"`
		PowerSafe bool   `json:"power_safe"`
		Warning   string `json:"warning"`
	} `json:"durability"`
}

// TestSynchronousOnEveryConnection: both environments' pools run every
// connection, recycled ones included, with SQLite's configured synchronous
// mode (FULL by default, NORMAL by the setting), and /readyz reports it.
func TestSynchronousOnEveryConnection(t *testing.T) {
	if apptest.Postgres() {
		t.Skip("PRAGMA synchronous is SQLite's (TestPostgresDurabilityWarning checks PostgreSQL)")
	}
	for _, tc := range []struct {
		mode      string
		want      int
		powerSafe bool
	}{{"", 2, true}, {"normal", 1, false}} {
		s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
			if tc.mode != "" {
				c.SQLiteSync = tc.mode
			}
		}})
		for _, env := range s.App.Envs.All() {
			dbtest.Synchronous(t, env.DB.SQL, tc.want)
		}
		// The pools keep serving after the recycling.
		s.Create(t, environment.Sandbox, "/v1/hubs", map[string]any{"code": "DUR1", "name": "Durable", "address": map[string]any{"country": "NL"}})
		var r readyz
		s.Do(t, "GET", s.URL+"/readyz", nil, nil).JSON(t, &r)
		for _, env := range []string{"production", "sandbox"} {
			d := r.Durability[env]
			if d.Mode != "synchronous="+map[int]string{2: "full", 1: "normal"}[tc.want] || d.PowerSafe != tc.powerSafe || d.Warning != "" {
				t.Errorf("%q: /readyz durability of %s: %+v", tc.mode, env, d)
			}
		}
	}
}

// TestSynchronousSetting: --sqlite-synchronous and its variable choose the
// mode; anything but full or normal is refused.
func TestSynchronousSetting(t *testing.T) {
	cfg := app.Defaults()
	if _, err := cfg.Load("serve", nil, func(k string) string { return map[string]string{"LOGISTICS_SQLITE_SYNCHRONOUS": "normal"}[k] }); err != nil || cfg.SQLiteSync != "normal" {
		t.Errorf("variable: %q, %v", cfg.SQLiteSync, err)
	}
	cfg = app.Defaults()
	if _, err := cfg.Load("serve", []string{"--sqlite-synchronous", "full"}, func(k string) string { return map[string]string{"LOGISTICS_SQLITE_SYNCHRONOUS": "normal"}[k] }); err != nil || cfg.SQLiteSync != "full" {
		t.Errorf("flag over variable: %q, %v", cfg.SQLiteSync, err)
	}
	for _, v := range []string{"off", "FULL", "extra", ""} {
		cfg = app.Defaults()
		if _, err := cfg.Load("serve", []string{"--sqlite-synchronous=" + v}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "sqlite-synchronous") {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestSQLiteDSNSynchronousWarning: a DSN's own weaker _synchronous is kept
// on every connection, logged as a warning at start and reported by
// /readyz.
func TestSQLiteDSNSynchronousWarning(t *testing.T) {
	if apptest.Postgres() {
		t.Skip("a SQLite DSN")
	}
	var logs apptest.LockedBuffer
	s := apptest.New(t, apptest.Options{Log: &logs, Config: func(c *app.Config) {
		c.DB = "file:" + filepath.Join(t.TempDir(), "p.db") + "?_sync=OFF"
	}})
	dbtest.Synchronous(t, s.App.Envs.Get(environment.Production).DB.SQL, 0)
	dbtest.Synchronous(t, s.App.Envs.Get(environment.Sandbox).DB.SQL, 2)
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "_sync=OFF, weaker than FULL") || !strings.Contains(l, "environment=production") || strings.Contains(l, "environment=sandbox") {
		t.Errorf("warning:\n%s", l)
	}
	var r readyz
	s.Do(t, "GET", s.URL+"/readyz", nil, nil).JSON(t, &r)
	if p := r.Durability["production"]; p.Mode != "synchronous=off" || p.PowerSafe || !strings.Contains(p.Warning, "weaker than FULL") {
		t.Errorf("/readyz production: %+v", p)
	}
	if sb := r.Durability["sandbox"]; sb.Mode != "synchronous=full" || !sb.PowerSafe || sb.Warning != "" {
		t.Errorf("/readyz sandbox: %+v", sb)
	}
}

// TestPostgresDurabilityWarning: against a throwaway cluster started with
// fsync=off, the service warns at start and /readyz reports both
// environments as not power-safe (still ready: durability is reported, not
// enforced).
func TestPostgresDurabilityWarning(t *testing.T) {
	admin := dbtest.Cluster(t, "fsync=off")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"prod", "sbx"} {
		if _, err := db.ExecContext(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	dsn := func(name string) string { return strings.Replace(admin, "/postgres?", "/"+name+"?", 1) }
	var logs apptest.LockedBuffer
	s := apptest.New(t, apptest.Options{Log: &logs, Config: func(c *app.Config) {
		c.DB, c.SandboxDB = dsn("prod"), dsn("sbx")
	}})
	for _, env := range s.App.Envs.All() {
		if env.DB.Dialect != dialect.Postgres {
			t.Fatalf("%s: %s", env.Name, env.DB.Dialect)
		}
	}
	if l := logs.String(); strings.Count(l, "fsync is off") != 2 || !strings.Contains(l, "level=WARN") {
		t.Errorf("warnings:\n%s", l)
	}
	resp := s.Do(t, "GET", s.URL+"/readyz", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz: %d", resp.StatusCode)
	}
	var r readyz
	resp.JSON(t, &r)
	for _, env := range []string{"production", "sandbox"} {
		if d := r.Durability[env]; d.Mode != "fsync=off synchronous_commit=on" || d.PowerSafe || !strings.Contains(d.Warning, "fsync is off") {
			t.Errorf("/readyz %s: %+v", env, d)
		}
	}
}
