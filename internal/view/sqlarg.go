// Hand-written SQL spells its argument placeholders as each dialect does:
// "?" on SQLite, "$1", "$2"… on PostgreSQL.

package view

import (
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
)

// Placeholder is the placeholder of the nth argument (from 1) in dia.
func Placeholder(dia string, n int) string {
	if dia == dialect.Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// WritePlaceholders writes the placeholders of arguments first … first+n-1 to b,
// separated by sep.
func WritePlaceholders(b *strings.Builder, dia string, first, n int, sep string) {
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		if dia == dialect.Postgres {
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(first + i))
		} else {
			b.WriteByte('?')
		}
	}
}
