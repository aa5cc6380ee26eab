package filter_test

import (
	"context"
	"slices"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"logistics/ent"
	"logistics/ent/migrate"
	"logistics/internal/filter"
	"logistics/internal/migrations"
	"logistics/internal/resourceid"
)

// TestEveryFilteredColumnIsIndexed: every column a list endpoint filters on
// leads an index (or is unique, or the primary key), on both databases —
// ent does not index foreign keys on PostgreSQL by itself. Edge filters
// (hub code) run on the other table's indexed columns. Exempt: free text
// (description: a substring search cannot use a B-tree), lists that are
// always scoped to one order (whose order_id leads an index), and the
// workflows table (a handful of rows).
func TestEveryFilteredColumnIsIndexed(t *testing.T) {
	tables := map[string]*schema.Table{}
	for _, tb := range migrate.Tables {
		tables[tb.Name] = tb
	}
	for _, ft := range filter.Tables {
		name, err := ent.IDToTable(context.Background(), resourceid.ID(ft.Fields[0].Prefix+"_x"))
		if err != nil {
			t.Fatalf("%s: %v", ft.Resource, err)
		}
		tb := tables[name]
		if scopedOrSmall[name] {
			continue
		}
		for _, f := range ft.Fields {
			if f.Edge != "" || f.Name == "description" {
				continue
			}
			col, err := tb.Column(f.Name)
			if !err {
				t.Errorf("%s.%s: no such column", name, f.Name)
				continue
			}
			if !leadsIndex(tb, col) {
				t.Errorf("%s.%s is filtered on but leads no index", name, f.Name)
			}
		}
	}
}

var scopedOrSmall = map[string]bool{"order_lines": true, "order_events": true, "workflows": true}

func leadsIndex(tb *schema.Table, col *schema.Column) bool {
	if col.Unique || (len(tb.PrimaryKey) > 0 && tb.PrimaryKey[0] == col) {
		return true
	}
	for _, ix := range tb.Indexes {
		if len(ix.Columns) > 0 && ix.Columns[0] == col {
			return true
		}
	}
	return false
}

// TestEverySubstringFilterHasSearchIndex: every string field of a list
// endpoint (f=*text*, GraphQL's fContainsFold) has a search index on
// PostgreSQL (migrations.SearchColumns), and every search index serves
// such a field, with the same exemptions as the B-tree rule. Edge filters
// (hub code, a part's sku) run on the other table's indexed column.
func TestEverySubstringFilterHasSearchIndex(t *testing.T) {
	want := map[string][]string{}
	for _, ft := range filter.Tables {
		name, err := ent.IDToTable(context.Background(), resourceid.ID(ft.Fields[0].Prefix+"_x"))
		if err != nil {
			t.Fatalf("%s: %v", ft.Resource, err)
		}
		for _, f := range ft.Fields {
			if f.Type != filter.String || !slices.Contains(f.Type.Operators(), filter.Contains) {
				continue
			}
			if f.Edge != "" {
				continue
			}
			if scopedOrSmall[name] || name == "events" {
				// The event log is appended to by every write; its search
				// would cost them (migrations.SearchColumns says how much).
				continue
			}
			want[name] = append(want[name], f.Name)
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d tables with substring filters", len(want))
	}
	for table, cols := range want {
		got := migrations.SearchColumns[table]
		for _, c := range cols {
			if !slices.Contains(got, c) {
				t.Errorf("%s.%s is a substring filter without a search index: add it to migrations.SearchColumns and generate a migration", table, c)
			}
		}
	}
	for table, cols := range migrations.SearchColumns {
		for _, c := range cols {
			if !slices.Contains(want[table], c) {
				t.Errorf("%s.%s has a search index but is no substring filter", table, c)
			}
		}
	}
	// The edges' columns are indexed on their own tables.
	for _, tc := range [][2]string{{"hubs", "code"}, {"parts", "sku"}} {
		if !slices.Contains(migrations.SearchColumns[tc[0]], tc[1]) {
			t.Errorf("%s.%s (an edge filter) has no search index", tc[0], tc[1])
		}
	}
}
