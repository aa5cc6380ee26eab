package rest

import (
	"fmt"

	entgo "entgo.io/ent"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
)

// Resources embed references to others ({id, code} of a hub): the eager
// loads read just those columns, not whole rows (descriptions and addresses
// made the part load of an items page cost as much as the page itself; an
// items page and an orders page now read them in their own statement,
// withItemRefs and withOrderHubCode).

func hubRef(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }

// refColumn adds to a page's statement s the text column name: the column
// col of the row of table whose id is s's column fk, a correlated scalar
// subquery (a primary-key lookup per row, as the floors read references).
// name starts with ent.TextColumn, so ent scans it as text; the entity's
// Value(name) gives it back (refText).
func refColumn(s *sql.Selector, table, col, fk, name string) {
	d := sql.Dialect(s.Dialect())
	t := d.Table(table).As("r_" + name[len(ent.TextColumn):])
	s.AppendSelectExprAs(d.Select(t.C(col)).From(t).Where(sql.ColumnsEQ(t.C("id"), s.C(fk))), name)
}

// refText is the text of a column refColumn added to the statement that
// read v.
func refText(v interface {
	Value(string) (entgo.Value, error)
}, name string) (string, error) {
	x, err := v.Value(name)
	if err != nil {
		return "", err
	}
	switch x := x.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", fmt.Errorf("%s is %T, not text", name, x)
}
