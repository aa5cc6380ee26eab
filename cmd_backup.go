package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"logistics/internal/app"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/sqlite"
)

func init() {
	commands["backup"] = command{"copy a running environment's SQLite database: backup --env production|sandbox --to FILE [--force]", backupCmd}
	commands["restore"] = command{"replace a stopped environment's SQLite database with a backup: restore --env production|sandbox --from FILE", restoreCmd}
}

// postgresBackupHelp is what backup and restore answer for an environment
// on PostgreSQL: its own tools do it, with point-in-time recovery.
const postgresBackupHelp = "runs on PostgreSQL (%s): back it up with PostgreSQL's tools, not this command:\n" +
	"  pg_dump --format=custom --file=%s.dump 'postgres://…'          (a consistent copy of a running database)\n" +
	"  pg_restore --clean --if-exists --dbname='postgres://…' %s.dump (into a stopped service's database)\n" +
	"or continuous WAL archiving for point-in-time recovery; see docs/operations.md, \"Backup and restore\""

// envDSN loads the shared settings (database flags, --sqlite-synchronous)
// with the subcommand's own and returns the configuration and the named
// environment's DSN.
func envDSN(name string, args []string, getenv func(string) string, env *string, extra func(*flag.FlagSet)) (app.Config, string, error) {
	cfg := app.Defaults()
	rest, err := cfg.Load(name, args, getenv, func(fs *flag.FlagSet) {
		fs.StringVar(env, "env", "", "the environment: production or sandbox (required)")
		extra(fs)
	})
	if err != nil {
		return cfg, "", err
	}
	if len(rest) > 0 {
		return cfg, "", fmt.Errorf("%s: unexpected arguments %q", name, rest)
	}
	switch environment.Name(*env) {
	case environment.Production:
		return cfg, cfg.DB, nil
	case environment.Sandbox:
		return cfg, cfg.SandboxDB, nil
	}
	return cfg, "", fmt.Errorf("%s: --env %q: production or sandbox", name, *env)
}

// backupCmd: `backup --env production --to /backups/p.db [--force]`
// copies the environment's SQLite database while the service runs.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var env, to string
	var force bool
	cfg, dsn, err := envDSN("backup", args, getenv, &env, func(fs *flag.FlagSet) {
		fs.StringVar(&to, "to", "", "the file to write (required); an existing one is refused without --force")
		fs.BoolVar(&force, "force", false, "replace --to if it exists")
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if to == "" {
		return errors.New("backup: --to FILE is required")
	}
	if database.IsPostgres(dsn) {
		return fmt.Errorf("backup: %s "+postgresBackupHelp, env, redactDSN(dsn), env, env)
	}
	// The shared open path, without migrating: a backup writes nothing.
	// A missing file would be created by Open, and copied empty.
	if _, err := os.Stat(sqlite.Path(dsn)); err != nil {
		return fmt.Errorf("backup: %s: %w", env, err)
	}
	db, err := database.Open(ctx, dsn, database.Options{MaxOpenConns: 2, SQLiteMemory: cfg.SQLiteMemoryBytes(), Synchronous: cfg.SQLiteSync, NoCheckpoints: true})
	if err != nil {
		return fmt.Errorf("backup: %s: %w", env, err)
	}
	defer db.Close()
	start := time.Now()
	size, err := db.Backup(ctx, to, force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s (%s) to %s: %d bytes in %s\n", env, db.Source, to, size, time.Since(start).Round(time.Millisecond))
	return nil
}

// restoreCmd: `restore --env production --from /backups/p.db` replaces the
// environment's SQLite database, which nothing may have open.
func restoreCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var env, from string
	cfg, dsn, err := envDSN("restore", args, getenv, &env, func(fs *flag.FlagSet) {
		fs.StringVar(&from, "from", "", "the backup to restore (required): checked with PRAGMA integrity_check first")
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if from == "" {
		return errors.New("restore: --from FILE is required")
	}
	if database.IsPostgres(dsn) {
		return fmt.Errorf("restore: %s "+postgresBackupHelp, env, redactDSN(dsn), env, env)
	}
	res, err := sqlite.Restore(ctx, dsn, from, cfg.SQLiteSync)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s: %s (%d bytes)\n", env, from, res.Target, res.Size)
	if res.Previous != "" {
		fmt.Fprintf(stdout, "the database it replaced is kept as %s (delete it when the restore is confirmed)\n", res.Previous)
	}
	return nil
}

// redactDSN is a DSN with its password masked.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		return u.Redacted()
	}
	return "postgres://…"
}
