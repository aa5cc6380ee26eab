package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/database"
	"logistics/internal/migrations"
)

// TestMigrateStatusApplyAndNewerRefused: `migrate status` lists what is
// pending, `migrate apply` applies it and status then shows the database
// at the binary's last migration; a database recorded at a migration the
// binary does not know is refused by status and at the server's start,
// naming both versions. SQLite, or PostgreSQL under LOGISTICS_TEST_POSTGRES.
func TestMigrateStatusApplyAndNewerRefused(t *testing.T) {
	ctx := context.Background()
	prod, sandbox := apptest.DSN(t, "migp"), apptest.DSN(t, "migs")
	getenv := func(string) string { return "" }
	flags := []string{"--db", prod, "--sandbox-db", sandbox}
	cli := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(ctx, append(args, flags...), getenv, &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	out, err := cli("migrate", "status")
	if err != nil || (!strings.Contains(out, "no database yet") && !strings.Contains(out, "pending ")) {
		t.Fatalf("status of new databases: %v\n%s", err, out)
	}
	if out, err = cli("migrate", "apply", "--env", "all"); err != nil || strings.Count(out, "applied ") < 2 {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	dia := "sqlite3"
	if database.IsPostgres(prod) {
		dia = "postgres"
	}
	dir, err := migrations.Dir(dia)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := dir.Files()
	latest := files[len(files)-1].Version()
	if out, err = cli("migrate", "status", "--env", "production"); err != nil || !strings.Contains(out, "at "+latest) || strings.Contains(out, "pending") {
		t.Fatalf("status after apply: %v\n%s", err, out)
	}
	if out, err = cli("migrate", "apply"); err != nil || strings.Count(out, "up to date") != 2 {
		t.Fatalf("apply again: %v\n%s", err, out)
	}

	db, err := database.Open(ctx, prod, database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const future = "99991231235959"
	_, err = db.SQL.ExecContext(ctx, "INSERT INTO "+migrations.RevisionsTable+" (version, description, checksum, applied_at) VALUES ('"+future+"', 'later', 'h1:x', 'now')")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err = cli("migrate", "status", "--env", "production")
	if err == nil || !strings.Contains(err.Error(), future) || !strings.Contains(err.Error(), latest) {
		t.Fatalf("status of a newer database: %v\n%s", err, out)
	}
	cfg := app.Defaults()
	cfg.DB, cfg.SandboxDB, cfg.DataDir, cfg.NoDemoData = prod, sandbox, t.TempDir(), true
	a, err := app.Open(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{})
	if err == nil {
		a.Close()
		t.Fatal("the server started on a database newer than the binary")
	}
	if !strings.Contains(err.Error(), "newer than this binary knows") || !strings.Contains(err.Error(), future) || !strings.Contains(err.Error(), latest) {
		t.Fatalf("start on a newer database: %v", err)
	}
}
