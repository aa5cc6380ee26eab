// Package casefold holds the case-insensitive string predicates of every
// generated ent filter (fContainsFold, fEqualFold; REST's f=*text*). On
// SQLite they are ent's own. On PostgreSQL ent writes `col ILIKE $1`; these
// write `lower(col) LIKE lower($1)` instead, which is the same test — in a
// multi-byte database (UTF8) or under an ICU collation PostgreSQL's ILIKE
// lower-cases both sides with lower() and compares them as LIKE does, and
// in a single-byte one it folds each character as lower() does — but one
// an index on the expression lower(col) can serve: the GIN gin_trgm_ops
// indexes of internal/migrations (SearchColumns). An index on the column
// itself would serve ILIKE too, but pg_trgm's operator class also answers
// `=`, and a where with several `…In` lists on such a column made the
// planner walk every combination of their values
// (docs/design/0023-substring-search.md).
package casefold

import (
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// FieldContainsFold is sql.FieldContainsFold: the field contains substr,
// case folded, with %, _ and \ in substr literal.
func FieldContainsFold(name, substr string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if s.Dialect() != dialect.Postgres {
			sql.FieldContainsFold(name, substr)(s)
			return
		}
		s.Where(lowerLike(s.C(name), "%"+strings.ToLower(Escape(substr))+"%"))
	}
}

// FieldEqualFold is sql.FieldEqualFold: the field equals v, case folded.
func FieldEqualFold(name, v string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if s.Dialect() != dialect.Postgres {
			sql.FieldEqualFold(name, v)(s)
			return
		}
		s.Where(lowerLike(s.C(name), strings.ToLower(Escape(v))))
	}
}

// lowerLike is `lower(col) LIKE lower(pattern)`. The pattern is lower-cased
// in Go already, as ent does, and again by the database, as ILIKE does:
// Go's and PostgreSQL's mappings may differ, and only the database's
// folding of both sides gives ILIKE's answer.
func lowerLike(col, pattern string) *sql.Predicate {
	return sql.P(func(b *sql.Builder) {
		b.WriteString("lower(").Ident(col).WriteString(") LIKE lower(").Arg(pattern).WriteString(")")
	})
}

// Escape makes %, _ and \ literal in a LIKE pattern, with PostgreSQL's
// default escape character (and ent's).
func Escape(w string) string {
	if !strings.ContainsAny(w, `%_\`) {
		return w
	}
	var b strings.Builder
	b.Grow(len(w) + 8)
	for _, c := range w {
		if c == '%' || c == '_' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
