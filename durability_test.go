package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/dbtest"
	"logistics/internal/environment"
)

// TestSubcommandsSynchronous runs every subcommand that writes (serve,
// seed, tokens, users) through its own open path and checks, while it has
// its App open, PRAGMA synchronous on every connection of both
// environments' pools, recycled ones included: FULL by default, NORMAL
// with --sqlite-synchronous normal (or its variable). On PostgreSQL it
// checks that each pool read the server's durability settings.
func TestSubcommandsSynchronous(t *testing.T) {
	dir := t.TempDir()
	dbFlags := []string{"--data-dir", dir}
	if apptest.Postgres() {
		dbFlags = append(dbFlags, "--db", apptest.DSN(t, "production"), "--sandbox-db", apptest.DSN(t, "sandbox"))
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want int // PRAGMA synchronous: 2 FULL, 1 NORMAL
	}{
		{"serve", []string{"serve", "--addr", "127.0.0.1:0"}, nil, 2},
		{"serve normal", []string{"serve", "--addr", "127.0.0.1:0", "--sqlite-synchronous", "normal"}, nil, 1},
		{"seed", []string{"seed", "--env", "production", "--scale", "0.001"}, nil, 2},
		{"users create", []string{"users", "create", "--email", "durable@example.com", "--role", "member"}, nil, 2},
		{"users reset-password", []string{"users", "reset-password", "--email", "durable@example.com"}, map[string]string{"LOGISTICS_SQLITE_SYNCHRONOUS": "normal"}, 1},
		{"tokens create", []string{"tokens", "create", "--name", "ci", "--env", "sandbox", "--scopes", "all"}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			checked := make(chan struct{})
			opened = func(a *app.App) {
				defer close(checked)
				for _, env := range a.Envs.All() {
					if env.DB.Dialect == dialect.Postgres {
						if !strings.HasPrefix(env.DB.Durability.Mode, "fsync=") {
							t.Errorf("%s: durability %+v", env.Name, env.DB.Durability)
						}
						continue
					}
					if n := dbtest.Synchronous(t, env.DB.SQL, tc.want); n == 0 {
						t.Errorf("%s: no connection checked", env.Name)
					}
				}
			}
			defer func() { opened = func(*app.App) {} }()
			var stdout, stderr apptest.LockedBuffer
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append(tc.args, dbFlags...), func(k string) string { return tc.env[k] }, &stdout, &stderr)
			}()
			select {
			case <-checked:
			case err := <-done:
				t.Fatalf("returned before opening its app: %v\n%s", err, stderr.String())
			case <-ctx.Done():
				t.Fatal("the subcommand did not open its app")
			}
			if tc.args[0] == "serve" {
				for !strings.Contains(stderr.String(), "console ready") && ctx.Err() == nil {
					time.Sleep(20 * time.Millisecond)
				}
				mode := map[int]string{2: "full", 1: "normal"}[tc.want]
				if !strings.Contains(stderr.String(), "sqlite_synchronous="+mode) {
					t.Errorf("the configuration logged at start does not name the mode %s:\n%s", mode, stderr.String())
				}
				cancel()
			}
			if err := <-done; err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
		})
	}
}

// TestSQLiteDSNSynchronousWarning: a --db DSN that sets its own, weaker
// _synchronous is kept, and serve says so in a warning.
func TestSQLiteDSNSynchronousWarning(t *testing.T) {
	if apptest.Postgres() {
		t.Skip("a SQLite DSN")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	checked := make(chan struct{})
	opened = func(a *app.App) {
		defer close(checked)
		dbtest.Synchronous(t, a.Envs.Get(environment.Production).DB.SQL, 1)
		dbtest.Synchronous(t, a.Envs.Get(environment.Sandbox).DB.SQL, 2)
	}
	defer func() { opened = func(*app.App) {} }()
	var stderr bytes.Buffer
	args := []string{"users", "create", "--email", "w@example.com", "--data-dir", dir, "--db", "file:" + dir + "/p.db?_synchronous=NORMAL"}
	if err := run(ctx, args, func(string) string { return "" }, io.Discard, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	<-checked
	logs := stderr.String()
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "_synchronous=NORMAL, weaker than FULL") || !strings.Contains(logs, "environment=production") {
		t.Errorf("no warning for the DSN's synchronous mode:\n%s", logs)
	}
	if strings.Contains(logs, "environment=sandbox") && strings.Count(logs, "weaker than FULL") > 1 {
		t.Errorf("a warning for the sandbox, which runs FULL:\n%s", logs)
	}
}
