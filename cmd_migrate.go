package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"logistics/internal/app"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/migrations"
	"logistics/internal/sqlite"
)

func init() {
	commands["migrate"] = command{"the schema's versioned migrations: migrate status|apply [--env production|sandbox|all]", migrateCmd}
}

// migrateCmd: `migrate status` shows, per environment, the applied and the
// pending migrations; `migrate apply` applies the pending ones under the
// same lock as a starting server (which applies them itself: apply is for
// migrating before the new release starts, or to see a failure on its
// own).
func migrateCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New("migrate: status or apply (migrate status --env production|sandbox|all)")
	}
	verb, args := args[0], args[1:]
	if verb != "status" && verb != "apply" {
		return fmt.Errorf("migrate: unknown %q: status or apply", verb)
	}
	env := "all"
	cfg := app.Defaults()
	rest, err := cfg.Load("migrate "+verb, args, getenv, func(fs *flag.FlagSet) {
		fs.StringVar(&env, "env", "all", "the environment: production, sandbox or all")
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("migrate %s: unexpected arguments %q", verb, rest)
	}
	var envs []struct {
		name environment.Name
		dsn  string
	}
	for _, e := range []struct {
		name environment.Name
		dsn  string
	}{{environment.Production, cfg.DB}, {environment.Sandbox, cfg.SandboxDB}} {
		if env == "all" || env == string(e.name) {
			envs = append(envs, e)
		}
	}
	if len(envs) == 0 {
		return fmt.Errorf("migrate %s: --env %q: production, sandbox or all", verb, env)
	}
	for _, e := range envs {
		if !database.IsPostgres(e.dsn) {
			if _, err := os.Stat(sqlite.Path(e.dsn)); errors.Is(err, os.ErrNotExist) && verb == "status" {
				fmt.Fprintf(stdout, "%s (%s): no database yet: the first start or migrate apply creates it\n", e.name, e.dsn)
				continue
			}
		}
		db, err := database.Open(ctx, e.dsn, database.Options{MaxOpenConns: 2, SQLiteMemory: cfg.SQLiteMemoryBytes(), Synchronous: cfg.SQLiteSync, NoCheckpoints: verb == "status"})
		if err != nil {
			return fmt.Errorf("migrate %s: %s: %w", verb, e.name, err)
		}
		err = migrateOne(ctx, verb, e.name, db, stdout)
		db.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func migrateOne(ctx context.Context, verb string, name environment.Name, db *database.DB, stdout io.Writer) error {
	if verb == "apply" {
		applied, err := migrations.Apply(ctx, db.SQL, db.Dialect)
		if err != nil {
			return fmt.Errorf("migrate apply: %s (%s): %w", name, db.Source, err)
		}
		if len(applied) == 0 {
			fmt.Fprintf(stdout, "%s (%s): up to date\n", name, db.Source)
		}
		for _, f := range applied {
			fmt.Fprintf(stdout, "%s (%s): applied %s\n", name, db.Source, f)
		}
	}
	st, err := migrations.ReadStatus(ctx, db.SQL, db.Dialect)
	if err != nil {
		return fmt.Errorf("migrate %s: %s: %w", verb, name, err)
	}
	current := st.Current()
	switch {
	case st.Unversioned:
		current = "none recorded (made by an earlier release: the next start or migrate apply adopts it)"
	case current == "":
		current = "none (empty database)"
	}
	fmt.Fprintf(stdout, "%s (%s, %s): at %s; this binary's last migration %s\n", name, db.Source, db.Dialect, current, st.Latest)
	for _, r := range st.Applied {
		how := "applied"
		if r.Baseline {
			how = "adopted"
		}
		fmt.Fprintf(stdout, "  %s %-24s %s %s\n", r.Version, r.Description, how, r.AppliedAt.Format("2006-01-02 15:04:05Z"))
	}
	for _, p := range st.Pending {
		fmt.Fprintf(stdout, "  pending %s\n", p)
	}
	if len(st.Newer) > 0 {
		return fmt.Errorf("migrate %s: %s: %w", verb, name, &migrations.NewerError{Database: st.Newer[len(st.Newer)-1], Binary: st.Latest})
	}
	return nil
}
