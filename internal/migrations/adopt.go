package migrations

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/postgres"
	atlas "ariga.io/atlas/sql/schema"
	"ariga.io/atlas/sql/sqlite"
	"entgo.io/ent/dialect"
)

// adopt checks that an unversioned database — one an earlier release's
// automatic migration made — has exactly the schema of the first file,
// which is then recorded as applied (its baseline) instead of run. The
// first file is replayed beside it: on SQLite in a new in-memory database,
// on PostgreSQL in a schema of its own in the same database, inside the
// migration's transaction and dropped before it commits. A database with
// other tables, or missing some, is refused: adopting it would record a
// schema it does not have.
func adopt(ctx context.Context, q querier, dia string, first migrate.File) error {
	stmts, err := first.Stmts()
	if err != nil {
		return err
	}
	var (
		have, want *atlas.Schema
		differ     migrate.Driver
	)
	switch dia {
	case dialect.SQLite:
		drv, err := sqlite.Open(q)
		if err != nil {
			return err
		}
		if have, err = drv.InspectSchema(ctx, "", nil); err != nil {
			return err
		}
		dev, done, err := DevDB(ctx, dia, "")
		if err != nil {
			return err
		}
		defer done()
		for _, s := range stmts {
			if _, err := dev.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("migrations: replay %s: %w", first.Name(), err)
			}
		}
		devDrv, err := sqlite.Open(dev)
		if err != nil {
			return err
		}
		if want, err = devDrv.InspectSchema(ctx, "", nil); err != nil {
			return err
		}
		differ = drv
	case dialect.Postgres:
		drv, err := postgres.Open(q)
		if err != nil {
			return err
		}
		var current string
		if err := q.QueryRowContext(ctx, "SELECT current_schema()").Scan(&current); err != nil {
			return err
		}
		if have, err = drv.InspectSchema(ctx, current, nil); err != nil {
			return err
		}
		var b [6]byte
		rand.Read(b[:]) //nolint:errcheck // never fails
		check := "logistics_baseline_" + hex.EncodeToString(b[:])
		if _, err := q.ExecContext(ctx, "CREATE SCHEMA "+check); err != nil {
			return fmt.Errorf("migrations: adopting the database needs a schema of its own for a moment: %w", err)
		}
		if _, err := q.ExecContext(ctx, "SET LOCAL search_path TO "+check); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := q.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("migrations: replay %s: %w", first.Name(), err)
			}
		}
		if want, err = drv.InspectSchema(ctx, check, nil); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "SET LOCAL search_path TO "+quoteIdent(current)); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "DROP SCHEMA "+check+" CASCADE"); err != nil {
			return err
		}
		want.Name = have.Name
		differ = drv
	default:
		return fmt.Errorf("migrations: dialect %q", dia)
	}
	changes, err := differ.SchemaDiff(have, want)
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		return &AdoptError{First: first.Name(), Changes: describe(changes)}
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// AdoptError refuses an unversioned database whose schema is not the
// first migration's.
type AdoptError struct {
	First   string
	Changes []string
}

func (e *AdoptError) Error() string {
	const max = 10
	c := e.Changes
	more := ""
	if len(c) > max {
		more = fmt.Sprintf(" and %d more", len(c)-max)
		c = c[:max]
	}
	return fmt.Sprintf("the database has tables but no recorded migrations, and its schema is not that of the first migration (%s): %s%s. "+
		"A database of the previous release is adopted as it is; one of an older release: start the previous release on it once first; anything else: use an empty database",
		e.First, strings.Join(c, "; "), more)
}

// describe names changes for a person (from the database's schema to the
// first migration's).
func describe(changes []atlas.Change) []string {
	var out []string
	for _, c := range changes {
		switch c := c.(type) {
		case *atlas.AddTable:
			out = append(out, "table "+c.T.Name+" is missing")
		case *atlas.DropTable:
			out = append(out, "table "+c.T.Name+" is not in the migration")
		case *atlas.ModifyTable:
			for _, tc := range c.Changes {
				out = append(out, c.T.Name+": "+describeTable(tc))
			}
		default:
			out = append(out, fmt.Sprintf("%T", c))
		}
	}
	return out
}

func describeTable(c atlas.Change) string {
	switch c := c.(type) {
	case *atlas.AddColumn:
		return "column " + c.C.Name + " is missing"
	case *atlas.DropColumn:
		return "column " + c.C.Name + " is not in the migration"
	case *atlas.ModifyColumn:
		return "column " + c.To.Name + " differs"
	case *atlas.AddIndex:
		return "index " + c.I.Name + " is missing"
	case *atlas.DropIndex:
		return "index " + c.I.Name + " is not in the migration"
	case *atlas.ModifyIndex:
		return "index " + c.To.Name + " differs"
	case *atlas.AddForeignKey:
		return "foreign key " + c.F.Symbol + " is missing"
	case *atlas.DropForeignKey:
		return "foreign key " + c.F.Symbol + " is not in the migration"
	case *atlas.ModifyForeignKey:
		return "foreign key " + c.To.Symbol + " differs"
	}
	return fmt.Sprintf("%T", c)
}
