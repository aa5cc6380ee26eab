package view

import (
	stdsql "database/sql"
	"database/sql/driver"
	"strings"
	"testing"
	"time"
)

// TestDriverRowsScan: driverRows gives each destination what database/sql
// would, and refuses what database/sql refuses (NULL into a string, text
// into a number, a column count that does not match) with an error, not a
// panic or a zero value.
func TestDriverRowsScan(t *testing.T) {
	var (
		s    string
		n64  int64
		n    int
		tm   time.Time
		null stdsql.NullString
	)
	r := &driverRows{vals: []driver.Value{"a", int64(7), int64(3), "2026-11-24 10:00:00.5+00:00", nil}}
	if err := r.Scan(&s, &n64, &n, Time{T: &tm}, &null); err != nil {
		t.Fatal(err)
	}
	if s != "a" || n64 != 7 || n != 3 || !tm.Equal(time.Date(2026, 11, 24, 10, 0, 0, 5e8, time.UTC)) || null.Valid {
		t.Fatalf("scanned %q %d %d %v %+v", s, n64, n, tm, null)
	}
	for _, c := range []struct {
		vals []driver.Value
		dest []any
		want string
	}{
		{[]driver.Value{nil}, []any{&s}, "cannot scan <nil> into *string"},
		{[]driver.Value{"x"}, []any{&n64}, "cannot scan string into *int64"},
		{[]driver.Value{"x", "y"}, []any{&s}, "1 destinations for 2 columns"},
		{[]driver.Value{int64(1)}, []any{Time{T: &tm}}, "column 0"},
		{[]driver.Value{"x"}, []any{new(float64)}, "cannot scan string into *float64"},
	} {
		err := (&driverRows{vals: c.vals}).Scan(c.dest...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v into %T: %v, want %q", c.vals, c.dest, err, c.want)
		}
	}
}
