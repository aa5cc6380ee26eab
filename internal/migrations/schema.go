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
	"ariga.io/atlas/sql/postgres"
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

// SearchColumns are the columns PostgreSQL indexes for substring search,
// by table: a GIN index on lower(col) with pg_trgm's gin_trgm_ops, which
// serves the `lower(col) LIKE lower($1)` that internal/casefold writes for
// f=*text* and GraphQL's fContainsFold and fEqualFold. They are every
// string field of the REST filter tables (internal/filter, whose
// TestEverySubstringFilterHasSearchIndex keeps the two lists equal).
// Exempt, as from the B-tree rule: the lists always scoped to one order
// (order lines, order events) and the workflows (a handful of rows). Also
// exempt: the event log, which every write appends to (a W4 operation, 9
// events): its three GIN indexes took W4's throughput on PostgreSQL from
// about 390 to 336 requests a second, against 382 with the other tables'
// indexes alone. Its lists are read by sequence and exact type.
//
// The index is on the expression, not the column: on a column,
// gin_trgm_ops also serves `=`, and the planner then combines a where's
// `col = ANY(…)` lists into one scan of the index that walks every
// combination of their values (docs/design/0023-substring-search.md).
// SQLite keeps scanning. ent cannot declare an expression index, nor an
// index for one dialect only, so the desired schema gets them here
// (withSearchIndexes); the drift check covers them like any index, and the
// extension they need is created by a file written by hand before the one
// that creates them (Atlas's open-source build does not manage extensions).
var SearchColumns = map[string][]string{
	"hubs":             {"code", "name", "address_line1", "city", "postal_code", "country", "timezone"},
	"parts":            {"sku", "part_name", "description"},
	"items":            {"lot", "serial"},
	"orders":           {"number", "status", "customer_ref", "ship_to_name", "ship_to_city", "ship_to_postal_code", "ship_to_country"},
	"tracking_entries": {"tracking_number", "carrier", "location", "description"},
}

// SearchIndex is the name of the search index of table.column.
func SearchIndex(table, column string) string { return table + "_" + column + "_lower_trgm" }

// withSearchIndexes adds SearchColumns' indexes to PostgreSQL's desired
// schema. It runs after ent has normalized that schema on the dev database,
// so each expression is written as PostgreSQL prints it back (a varchar
// column is cast to text), which is what Atlas compares the inspected
// index with.
func withSearchIndexes(next entschema.Differ) entschema.Differ {
	return entschema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
		tables := make([]string, 0, len(SearchColumns))
		for table := range SearchColumns {
			tables = append(tables, table)
		}
		sort.Strings(tables) // the same file from every run
		for _, table := range tables {
			cols := SearchColumns[table]
			t, ok := desired.Table(table)
			if !ok {
				return nil, fmt.Errorf("migrations: no table %s for its search indexes", table)
			}
			for _, name := range cols {
				c, ok := t.Column(name)
				if !ok {
					return nil, fmt.Errorf("migrations: no column %s.%s for its search index", table, name)
				}
				x := "lower(" + name + ")"
				if st, ok := c.Type.Type.(*atlas.StringType); ok && st.T != "text" {
					x = "lower((" + name + ")::text)"
				}
				t.AddIndexes(atlas.NewIndex(SearchIndex(table, name)).
					AddAttrs(&postgres.IndexType{T: postgres.IndexTypeGIN}).
					AddParts(&atlas.IndexPart{X: &atlas.RawExpr{X: x}, Attrs: []atlas.Attr{&postgres.IndexOpClass{Name: "gin_trgm_ops"}}}))
			}
		}
		return next.Diff(current, desired)
	})
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
	searchIndexes := entschema.WithDiffHook(func(next entschema.Differ) entschema.Differ { return next })
	if dia == dialect.Postgres {
		searchIndexes = entschema.WithDiffHook(withSearchIndexes)
	}
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
		// First, so that the next hook sees the indexes in the desired
		// schema.
		searchIndexes,
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
