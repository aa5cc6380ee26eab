package view

import (
	"strings"
	"testing"

	"entgo.io/ent/dialect"
)

func TestPlaceholders(t *testing.T) {
	if got := Placeholder(dialect.Postgres, 12); got != "$12" {
		t.Errorf("PostgreSQL: %q", got)
	}
	if got := Placeholder(dialect.SQLite, 12); got != "?" {
		t.Errorf("SQLite: %q", got)
	}
	for _, tc := range []struct {
		dia       string
		first, n  int
		sep, want string
	}{
		{dialect.Postgres, 1, 3, ", ", "$1, $2, $3"},
		{dialect.Postgres, 4, 2, ",", "$4,$5"},
		{dialect.SQLite, 4, 3, ", ", "?, ?, ?"},
		{dialect.SQLite, 1, 0, ", ", ""},
	} {
		var b strings.Builder
		WritePlaceholders(&b, tc.dia, tc.first, tc.n, tc.sep)
		if b.String() != tc.want {
			t.Errorf("%s %d×%d: %q, want %q", tc.dia, tc.first, tc.n, b.String(), tc.want)
		}
	}
}
