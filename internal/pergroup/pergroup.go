// Package pergroup reads at most n rows per parent in one statement — the
// newest 3 tracking entries of each order of a page, the first 10 items of
// each hub — with an index seek per parent that stops after n rows.
//
// entgql's LimitPerRow (and the REST orders' first version) numbered the
// rows with ROW_NUMBER() OVER (PARTITION BY parent …) and kept the first n:
// the window reads and sorts every row of every parent. An order that
// collects thousands of tracking entries (the benchmark's W5 appends about
// a thousand a second to 100 shipped orders) made the page of its orders
// cost as much: W3s fell from 228 to 10 requests a second, the floor's own
// window query with it.
package pergroup

import (
	"database/sql/driver"
	"reflect"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// First has entgql.LimitPerRow's signature and meaning: a modifier of an
// eager-load query (its WHERE already holds the parent ids, as ent's
// loaders apply predicates before modifiers) that keeps the first limit
// rows per value of the column partitionBy, ordered by orderBy. The rows
// come back by parent, then in that order.
//
// The parents are the distinct values of partitionBy among the rows the
// query selects — or, in the common case of a WHERE that is exactly
// "partitionBy IN (ids)", those ids without reading the table — and for
// each of them a correlated subquery with ORDER BY … LIMIT reads the first
// rows: CROSS JOIN LATERAL on PostgreSQL; on SQLite, which has no LATERAL,
// a join on "id IN (that subquery)". Every query using it has an "id"
// primary key (all our tables do).
func First(partitionBy string, limit int, orderBy ...sql.Querier) func(*sql.Selector) {
	return func(s *sql.Selector) {
		d := sql.Dialect(s.Dialect())
		table := s.TableName()
		cols := s.UnqualifiedColumns()
		s.SetDistinct(false)
		s.ClearOrder()

		// The parents, as a derived table with one column, gCol.
		const gAlias, gCol, lAlias = "pergroup_parents", "parent_id", "pergroup_limited"
		var groups sql.Querier
		if ids, ok := inValues(s, partitionBy); ok {
			groups = sql.ExprFunc(func(b *sql.Builder) {
				b.WriteString("(SELECT column1 AS ").Ident(gCol).WriteString(" FROM (VALUES ")
				for i, id := range ids {
					if i > 0 {
						b.Comma()
					}
					b.WriteString("(").Arg(id).WriteString(")")
				}
				b.WriteString(") AS pergroup_values)")
			})
		} else {
			g := s.Clone()
			g.Select(sql.As(g.C(partitionBy), gCol)).Distinct()
			groups = sql.ExprFunc(func(b *sql.Builder) { b.Wrap(func(b *sql.Builder) { b.Join(g) }) })
		}
		parentCol := sql.ExprFunc(func(b *sql.Builder) { b.Ident(gAlias).WriteByte('.').Ident(gCol) })

		// The first rows of one parent: the query itself, for that parent.
		inner := s.Clone()
		inner.Where(sql.P(func(b *sql.Builder) {
			b.Ident(inner.C(partitionBy)).WriteOp(sql.OpEQ).Join(parentCol)
		}))
		inner.OrderExpr(orderBy...).Limit(limit)

		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = d.Table(table).As(lAlias).C(c)
		}
		from := sql.ExprFunc(func(b *sql.Builder) {
			b.Join(groups).WriteString(" AS ").Ident(gAlias)
			if s.Dialect() == dialect.Postgres {
				b.WriteString(" CROSS JOIN LATERAL ")
				b.Wrap(func(b *sql.Builder) { b.Join(inner) })
				b.WriteString(" AS ").Ident(lAlias)
				return
			}
			inner.Select(inner.C("id"))
			b.WriteString(" JOIN ").Ident(table).WriteString(" AS ").Ident(lAlias).
				WriteString(" ON ").Ident(lAlias).WriteByte('.').Ident("id").WriteString(" IN ")
			b.Wrap(func(b *sql.Builder) { b.Join(inner) })
		})
		order := append([]sql.Querier{parentCol}, orderBy...)
		*s = *d.Select(out...).FromExpr(from).OrderExpr(order...)
	}
}

// inValues returns the values of the query's WHERE clause when it is
// exactly "column IN (values)", as ent's eager loaders write it, each once.
func inValues(s *sql.Selector, column string) ([]any, bool) {
	p := s.P()
	if p == nil {
		return nil, false
	}
	got, args := p.Query()
	if len(args) == 0 {
		return nil, false
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		if a == nil || !reflect.TypeOf(a).Comparable() {
			return nil, false
		}
		vals[i] = a
	}
	// Both rendered the same way: a stored predicate renders without the
	// dialect's placeholders ("?" on every dialect).
	if want, _ := sql.InValues(s.C(column), vals...).Query(); got != want {
		return nil, false
	}
	seen := make(map[any]bool, len(args))
	ids := make([]any, 0, len(args))
	for _, a := range args {
		if !seen[a] {
			seen[a] = true
			ids = append(ids, a)
		}
	}
	return ids, true
}
