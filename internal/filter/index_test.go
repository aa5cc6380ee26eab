package filter_test

import (
	"context"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"logistics/ent"
	"logistics/ent/migrate"
	"logistics/internal/filter"
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
