// Package nullsort pages a list whose first sort key is a nullable column
// (orders by due_at, items by expires_at) with the nulls last, in either
// direction, by keyset cursors that neither skip nor repeat a row.
//
// entgql's keyset cursors compare the sort value with the cursor's, and a
// comparison with NULL is never true: rows whose value is NULL were never
// reached (a cursor holding a NULL compared nothing and fell back to the id).
// And where NULLs sort differs by database (PostgreSQL: last ascending,
// first descending; SQLite: first ascending, last descending).
//
// Here a page is read as two segments in scan order: the rows with a value,
// by (column, further keys, id), then the rows without, by (further keys,
// id); paging backward (last/before) reads them the other way round. Each
// segment is a plain range of the index on (column, id) — "column IS NOT
// NULL AND column >= v …" or "column IS NULL AND id > …" — on both
// databases, whatever place the database gives NULLs in an index: no
// NULLS LAST in an index definition or an ORDER BY is needed. The second
// segment is read only when the first one does not fill the page. A cursor
// holds the row's values as entgql's do, NULL as nil; the nil says which
// segment the cursor is in (docs/design/0025-nulls-last-keyset-pages.md).
//
// Nested connections (hub { orders(orderBy: …) }), read per parent in one
// statement, use the single-statement form: Predicate and Expr, which sort
// by "column IS NULL" first.
package nullsort

import (
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
)

// Order is a page's order: Columns[0] is the nullable column, the others
// further sort keys, then the id. Directions are those of the scan: already
// reversed when the page is read backward (Reverse).
type Order struct {
	Columns     []string
	Directions  []entgql.OrderDirection
	ID          string
	IDDirection entgql.OrderDirection
	Reverse     bool
	// NotNull: Columns[0] has no NULLs (tracking entries' occurred_at), so
	// there is one segment; the pages still get the range the index starts at.
	NotNull bool
}

// Segments lists the segments in scan order: false is the rows with a
// value, true the rows whose value is NULL.
func (o *Order) Segments() []bool {
	if o.NotNull {
		return []bool{false}
	}
	if o.Reverse {
		return []bool{true, false}
	}
	return []bool{false, true}
}

// position is where a cursor is: in which segment, and its values there.
type position[T any] struct {
	null   bool
	values []any
	id     T
}

// at decodes a cursor against the order.
func at[T any](o *Order, c *entgql.Cursor[T]) (position[T], error) {
	vs, ok := c.Value.([]any)
	if !ok || len(vs) != len(o.Columns) {
		return position[T]{}, fmt.Errorf("cursor does not belong to this order: %d values for %d order fields", len(vs), len(o.Columns))
	}
	for _, v := range vs[1:] {
		if v == nil {
			return position[T]{}, fmt.Errorf("cursor does not belong to this order: a null value")
		}
	}
	return position[T]{null: vs[0] == nil, values: vs, id: c.ID}, nil
}

// Where returns the predicate that keeps, of segment null, the rows beyond
// every cursor in scan order (the segment's own condition included), and
// false when no row of the segment is beyond them.
func Where[T any](o *Order, null bool, cursors ...*entgql.Cursor[T]) (func(*sql.Selector), bool, error) {
	cond, ok, err := segment(o, null, cursors)
	if err != nil || !ok {
		return nil, ok, err
	}
	return func(s *sql.Selector) {
		if p := cond(s); p != nil {
			s.Where(p)
		}
	}, true, nil
}

// Predicate is the single-statement form of Where: the rows of both
// segments beyond the cursors, or nil when there is no cursor.
func Predicate[T any](o *Order, cursors ...*entgql.Cursor[T]) (func(*sql.Selector), error) {
	given := false
	for _, c := range cursors {
		given = given || c != nil
	}
	if !given {
		return nil, nil
	}
	var conds []func(*sql.Selector) *sql.Predicate
	for _, null := range o.Segments() {
		cond, ok, err := segment(o, null, cursors)
		if err != nil {
			return nil, err
		}
		if ok {
			conds = append(conds, cond)
		}
	}
	return func(s *sql.Selector) {
		if len(conds) == 0 {
			s.Where(sql.False())
			return
		}
		or := make([]*sql.Predicate, len(conds))
		for i, c := range conds {
			or[i] = c(s)
		}
		s.Where(sql.Or(or...))
	}, nil
}

// segment is the condition of Where, built on the statement's selector.
func segment[T any](o *Order, null bool, cursors []*entgql.Cursor[T]) (func(*sql.Selector) *sql.Predicate, bool, error) {
	col := o.Columns[0]
	rank := map[bool]int{}
	for i, s := range o.Segments() {
		rank[s] = i
	}
	type keyset struct {
		cols  []string
		dirs  []entgql.OrderDirection
		vals  []any
		start any // the first column's bound in the segment with values
	}
	var sets []keyset
	for _, c := range cursors {
		if c == nil {
			continue
		}
		p, err := at(o, c)
		if err != nil {
			return nil, false, err
		}
		switch {
		case rank[p.null] > rank[null]: // the whole segment comes before the cursor
			return nil, false, nil
		case rank[p.null] < rank[null]: // the whole segment comes after it
			continue
		}
		k := keyset{cols: o.Columns, dirs: o.Directions, vals: p.values}
		if null {
			k.cols, k.dirs, k.vals = k.cols[1:], k.dirs[1:], k.vals[1:]
		} else {
			k.start = p.values[0]
		}
		k.cols = append(k.cols[:len(k.cols):len(k.cols)], o.ID)
		k.dirs = append(k.dirs[:len(k.dirs):len(k.dirs)], o.IDDirection)
		k.vals = append(k.vals[:len(k.vals):len(k.vals)], any(p.id))
		sets = append(sets, k)
	}
	return func(s *sql.Selector) *sql.Predicate {
		and := []*sql.Predicate{}
		switch {
		case null:
			and = append(and, sql.IsNull(s.C(col)))
		case !o.NotNull:
			and = append(and, sql.NotNull(s.C(col)))
		}
		for _, k := range sets {
			if k.start != nil {
				// Redundant with the keyset predicate, but a range the
				// index can start at: the OR alone is a filter read from
				// the index's first entry.
				if o.Directions[0] == entgql.OrderDirectionAsc {
					and = append(and, sql.GTE(s.C(col), k.start))
				} else {
					and = append(and, sql.LTE(s.C(col), k.start))
				}
			}
			and = append(and, beyond(s, k.cols, k.dirs, k.vals))
		}
		if len(and) == 0 {
			return nil
		}
		return sql.And(and...)
	}, true, nil
}

// beyond is the keyset predicate (c1 > v1) OR (c1 = v1 AND c2 > v2) OR …,
// each comparison in its column's direction.
func beyond(s *sql.Selector, cols []string, dirs []entgql.OrderDirection, vals []any) *sql.Predicate {
	or := make([]*sql.Predicate, 0, len(cols))
	for i := range cols {
		and := make([]*sql.Predicate, 0, i+1)
		for j := 0; j < i; j++ {
			and = append(and, sql.EQ(s.C(cols[j]), vals[j]))
		}
		if dirs[i] == entgql.OrderDirectionAsc {
			and = append(and, sql.GT(s.C(cols[i]), vals[i]))
		} else {
			and = append(and, sql.LT(s.C(cols[i]), vals[i]))
		}
		or = append(or, sql.And(and...))
	}
	return sql.Or(or...)
}

// OrderBy is the ORDER BY of segment null: its sort keys in their
// directions, then the id.
func (o *Order) OrderBy(null bool) func(*sql.Selector) {
	cols, dirs := o.Columns, o.Directions
	if null {
		cols, dirs = cols[1:], dirs[1:]
	}
	return func(s *sql.Selector) {
		for i, c := range cols {
			s.OrderBy(term(s.C(c), dirs[i]))
		}
		s.OrderBy(term(s.C(o.ID), o.IDDirection))
	}
}

func term(col string, d entgql.OrderDirection) string {
	if d == entgql.OrderDirectionDesc {
		return sql.Desc(col)
	}
	return sql.Asc(col)
}

// Expr is the single-statement ORDER BY: the rows with a value first ("column
// IS NULL" ascending; descending when read backward), then the sort keys and
// the id.
func (o *Order) Expr() sql.Querier {
	return sql.ExprFunc(func(b *sql.Builder) {
		if !o.NotNull {
			b.Ident(o.Columns[0]).WriteString(" IS NULL")
			if o.Reverse {
				b.WriteString(" DESC")
			}
			b.Comma()
		}
		for i, c := range o.Columns {
			b.Ident(c).Pad().WriteString(string(o.Directions[i])).Comma()
		}
		b.Ident(o.ID).Pad().WriteString(string(o.IDDirection))
	})
}
