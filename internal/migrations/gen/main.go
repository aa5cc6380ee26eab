// Command gen writes the next versioned migration: it replays the
// migration files of each dialect on an empty dev database (SQLite in
// memory; PostgreSQL a throwaway database created on the server given by
// -postgres or LOGISTICS_MIGRATIONS_POSTGRES and dropped afterwards), diffs
// the result against the ent schema, and writes the difference as a new
// file in internal/migrations/<dialect>/ with atlas.sum updated. Run it
// from the repository root after changing ent/schema and `go generate`:
//
//	go run ./internal/migrations/gen -postgres postgres://postgres@127.0.0.1:5432/postgres add_hub_region
//
// A change that drops or rewrites data is refused unless -allow-destructive
// (docs/operations.md, Migrations). -hash only rewrites atlas.sum (after a
// file was edited by hand, which a reviewed change may do before release).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"

	"logistics/internal/migrations"
)

func main() {
	pg := flag.String("postgres", os.Getenv("LOGISTICS_MIGRATIONS_POSTGRES"), "a PostgreSQL server's URL (postgres://...) on which a throwaway dev database is created")
	only := flag.String("dialect", "", "only this dialect (sqlite or postgres); default both")
	destructive := flag.Bool("allow-destructive", false, "write a change that drops or rewrites data (pair it with a data migration)")
	hash := flag.Bool("hash", false, "only rewrite atlas.sum from the files")
	root := flag.String("dir", "internal/migrations", "the directory holding sqlite/ and postgres/")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./internal/migrations/gen [flags] NAME\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*root, *only, *pg, flag.Arg(0), *destructive, *hash); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var validName = regexp.MustCompile(`^[a-z0-9_]{1,60}$`)

func run(root, only, pg, name string, destructive, hash bool) error {
	if !hash && !validName.MatchString(name) {
		return fmt.Errorf("give the migration a NAME of lower-case letters, digits and _ (got %q)", name)
	}
	ctx := context.Background()
	for _, dia := range []string{dialect.SQLite, dialect.Postgres} {
		if only != "" && only != dia {
			continue
		}
		sub, err := migrations.Folder(dia)
		if err != nil {
			return err
		}
		dir, err := migrate.NewLocalDir(filepath.Join(root, sub))
		if err != nil {
			return err
		}
		if hash {
			sum, err := dir.Checksum()
			if err != nil {
				return err
			}
			if err := migrate.WriteSumFile(dir, sum); err != nil {
				return err
			}
			fmt.Printf("%s: atlas.sum rewritten\n", dia)
			continue
		}
		if dia == dialect.Postgres && pg == "" {
			return fmt.Errorf("postgres: give a server with -postgres or LOGISTICS_MIGRATIONS_POSTGRES (or -dialect sqlite)")
		}
		dev, done, err := migrations.DevDB(ctx, dia, pg)
		if err != nil {
			return err
		}
		file, err := migrations.Write(ctx, dia, dev, dir, name, destructive)
		done()
		if err != nil {
			return fmt.Errorf("%s: %w", dia, err)
		}
		if file == "" {
			fmt.Printf("%s: no change\n", dia)
			continue
		}
		fmt.Printf("%s: wrote %s\n", dia, filepath.Join(root, sub, file))
	}
	return nil
}
