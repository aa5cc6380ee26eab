// Package migrations holds the versioned schema of each dialect — ordered SQL
// files with Atlas's checksum file (atlas.sum), generated from the ent schema
// — and applies them: pending files in order, each recorded in the
// database's revisions table, under the cross-instance migration lock
// (docs/design/0017-versioned-migrations.md).
package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"ariga.io/atlas/sql/migrate"
	atlas "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	entschema "entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"

	entmigrate "logistics/ent/migrate"
)

// The event log's own tables (internal/eventlog): one row each, no id
// prefix, so not ent types. They are part of the desired schema beside
// ent's tables, so the files create them and the drift check covers them.
// Their columns are those the automatic migration of earlier releases
// created by hand (id INTEGER PRIMARY KEY, a 64-bit value), so a database
// of such a release matches the first migration.
// On SQLite that id is declared without NOT NULL (an INTEGER PRIMARY KEY
// is the rowid and never NULL whatever it declares), and the files say the
// same so that such a database matches them.
func handTable(dia, name, value string) *entschema.Table {
	id := &entschema.Column{Name: "id", Type: field.TypeInt32, Nullable: dia == dialect.SQLite}
	return &entschema.Table{
		Name:       name,
		Columns:    []*entschema.Column{id, {Name: value, Type: field.TypeInt64}},
		PrimaryKey: []*entschema.Column{id},
	}
}

// tables is the desired schema: ent's tables and the event log's.
func tables(dia string) []*entschema.Table {
	return append(append([]*entschema.Table(nil), entmigrate.Tables...),
		handTable(dia, "event_counter", "last_value"), handTable(dia, "webhook_endpoints_stamp", "stamp"))
}

// PendingSequence is the PostgreSQL sequence of events.pending_order
// (internal/eventlog's sequencer). Atlas's open-source build neither
// inspects nor diffs standalone sequences, so the first PostgreSQL file
// creates it by a statement written by hand below the generated ones.
const PendingSequence = "events_pending_order_seq"

// Changes is the schema change that would bring the files of dir, replayed
// on the empty dev database dev, to the ent schema: empty when they agree.
// It writes nothing.
func Changes(ctx context.Context, dia string, dev *sql.DB, dir migrate.Dir) ([]atlas.Change, error) {
	var changes []atlas.Change
	capture := entschema.WithDiffHook(func(next entschema.Differ) entschema.Differ {
		return entschema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
			c, err := next.Diff(current, desired)
			changes = c
			return nil, err // nothing to write
		})
	})
	if err := diff(ctx, dia, dev, dir, "check", capture); err != nil {
		return nil, err
	}
	return changes, nil
}

// Write diffs like Changes and writes the change as the next file of dir,
// named name, and updates dir's atlas.sum. It refuses a destructive change
// (Destructive) unless allowDestructive. It returns the file's name, ""
// when there is nothing to write.
func Write(ctx context.Context, dia string, dev *sql.DB, dir migrate.Dir, name string, allowDestructive bool) (string, error) {
	before, err := dir.Files()
	if err != nil {
		return "", err
	}
	destructive := false
	guard := entschema.WithDiffHook(func(next entschema.Differ) entschema.Differ {
		return entschema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
			c, err := next.Diff(current, desired)
			if err != nil {
				return nil, err
			}
			if d := Destructive(c); len(d) > 0 {
				if !allowDestructive {
					return nil, &DestructiveError{Changes: d}
				}
				destructive = true
			}
			return c, nil
		})
	})
	if err := diff(ctx, dia, dev, dir, name, guard); err != nil {
		return "", err
	}
	after, err := dir.Files()
	if err != nil {
		return "", err
	}
	if len(after) == len(before) {
		return "", nil
	}
	f := after[len(after)-1]
	if destructive {
		// Marked, so that applying it without its data step fails
		// (apply.go) and review sees it.
		if err := dir.WriteFile(f.Name(), append([]byte(DestructiveMarker+" (pair with a data step in internal/migrations/data.go)\n"), f.Bytes()...)); err != nil {
			return "", err
		}
		sum, err := dir.Checksum()
		if err != nil {
			return "", err
		}
		if err := migrate.WriteSumFile(dir, sum); err != nil {
			return "", err
		}
	}
	return f.Name(), nil
}

func diff(ctx context.Context, dia string, dev *sql.DB, dir migrate.Dir, name string, hook entschema.MigrateOption) error {
	m, err := entschema.NewMigrate(entsql.OpenDB(dia, dev),
		entschema.WithDir(dir),
		entschema.WithMigrationMode(entschema.ModeReplay),
		entschema.WithDialect(dia),
		// The same choices as the automatic migration of earlier releases
		// (database.Migrate with migrate.WithDropIndex): foreign keys, and
		// an index no longer in the ent schema is dropped.
		entschema.WithForeignKeys(true),
		entschema.WithDropIndex(true),
		entschema.WithDropColumn(true),
		entschema.WithFormatter(migrate.DefaultFormatter),
		hook,
	)
	if err != nil {
		return err
	}
	return m.NamedDiff(ctx, name, tables(dia)...)
}

// DestructiveError is a schema change that drops or rewrites data.
type DestructiveError struct{ Changes []string }

func (e *DestructiveError) Error() string {
	return "the change drops or rewrites data (" + strings.Join(e.Changes, "; ") +
		"): write it with -allow-destructive, and pair it with a data migration (docs/operations.md, Migrations)"
}

// Destructive names the changes that drop or rewrite stored data: a table
// or column dropped, a column's type changed, a column made NOT NULL (rows
// holding NULL fail or need a value). Adding and dropping indexes, and new
// nullable columns or tables, keep every row.
func Destructive(changes []atlas.Change) []string {
	var out []string
	for _, c := range changes {
		switch c := c.(type) {
		case *atlas.DropTable:
			out = append(out, "drop table "+c.T.Name)
		case *atlas.ModifyTable:
			for _, tc := range c.Changes {
				switch tc := tc.(type) {
				case *atlas.DropColumn:
					out = append(out, "drop column "+c.T.Name+"."+tc.C.Name)
				case *atlas.ModifyColumn:
					if tc.Change.Is(atlas.ChangeType) {
						out = append(out, "change the type of "+c.T.Name+"."+tc.To.Name)
					}
					if tc.Change.Is(atlas.ChangeNull) && tc.From.Type != nil && tc.From.Type.Null && tc.To.Type != nil && !tc.To.Type.Null {
						out = append(out, "make "+c.T.Name+"."+tc.To.Name+" NOT NULL")
					}
				case *atlas.RenameColumn:
					out = append(out, "rename column "+c.T.Name+"."+tc.From.Name)
				}
			}
		case *atlas.RenameTable:
			out = append(out, "rename table "+c.From.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ErrDrift is returned by Check when the files and the ent schema disagree.
var ErrDrift = errors.New("the migration files do not match the ent schema")

// Check verifies dir's checksum file and that its files replayed on dev
// equal the ent schema.
func Check(ctx context.Context, dia string, dev *sql.DB, dir migrate.Dir) error {
	if err := migrate.Validate(dir); err != nil {
		return fmt.Errorf("%s migrations: atlas.sum: %w (a file was edited or added by hand: run `go run ./internal/migrations/gen -hash`)", dia, err)
	}
	c, err := Changes(ctx, dia, dev, dir)
	if err != nil {
		return err
	}
	if len(c) > 0 {
		return fmt.Errorf("%w (%s: %d changes): run `go run ./internal/migrations/gen NAME` and commit the new file", ErrDrift, dia, len(c))
	}
	return nil
}

// dialects are the dialects with migration files.
var dialects = []string{dialect.SQLite, dialect.Postgres}
