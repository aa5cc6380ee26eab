package rest

import (
	"fmt"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/part"
)

// Resources embed references to others ({id, code} of a hub, {id, sku} of a
// part): the eager loads read just those columns, not whole rows
// (descriptions and addresses made the part load of an items page cost as
// much as the page itself).

func hubRef(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }

func partRef(q *ent.PartQuery) { q.Select(part.FieldID, part.FieldSku, part.FieldPartName) }

// A row's references come in its own statement: joinRef adds the joined
// table's columns under "<as>_<column>" names, and refText reads them back.
// An item then costs one statement instead of three (the item, its part,
// its hub), alone or in a page.

// joinRef joins table (as alias as) on the row's fk column and selects cols
// of it. The references are required (foreign keys), so no row goes
// missing; the join is a LEFT one all the same, which keeps the planner
// from starting anywhere but the row's own table (SQLite does not reorder
// a LEFT JOIN).
func joinRef(table, as, fk string, cols ...string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		t := sql.Table(table).As(as)
		s.LeftJoin(t).On(s.C(fk), t.C("id"))
		for _, c := range cols {
			s.AppendSelect(sql.As(t.C(c), as+"_"+c))
		}
	}
}

// refText reads a column joinRef selected, through the row's Value method.
func refText(value func(string) (ent.Value, error), as, col string) string {
	v, err := value(as + "_" + col)
	if err != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case *sql.NullString:
		return v.String
	}
	return fmt.Sprint(v)
}
