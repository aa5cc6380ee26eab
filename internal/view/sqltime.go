// Timestamps are read in hand-written statements without
// go-sqlite3's parser.
//
// go-sqlite3 turns the text of every datetime column into a time.Time by
// trying the layouts of sqlite3.SQLiteTimestampFormats with
// time.ParseInLocation, about half a microsecond a value: on W3 (50 orders,
// about 200 lines, each with two timestamps) that was a quarter of the lines
// statement's cost. It does so only for a
// column that a statement selects by name, whose declared type it can see;
// an expression ("+created_at": SQLite's unary plus returns its operand
// unchanged) comes back as the stored text. TimeColumn makes that expression on
// SQLite, and Time and NullTime scan either form: the text of the layout
// go-sqlite3 writes is read digit by digit, anything else the way go-sqlite3
// reads it, so a value reads the same by either route (TestSameAsDriver).
// PostgreSQL's driver returns time.Time values; TimeColumn leaves its columns
// alone.

package view

import (
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/mattn/go-sqlite3"
)

// TimeColumn is col (a quoted column reference) as a hand-written statement of
// dialect name selects it to scan into Time or NullTime.
func TimeColumn(name, col string) string {
	if name == dialect.SQLite {
		return "+" + col
	}
	return col
}

// TimeColumns returns TimeColumn for dialect name, for a statement that selects
// several timestamps.
func TimeColumns(name string) func(col string) string {
	return func(col string) string { return TimeColumn(name, col) }
}

// Time scans a timestamp column that must not be NULL into *T.
type Time struct{ T *time.Time }

// Scan implements sql.Scanner.
func (t Time) Scan(v any) error {
	if v == nil {
		return fmt.Errorf("view: NULL read into a timestamp that cannot be NULL")
	}
	r, err := value(v)
	if err != nil {
		return err
	}
	*t.T = r
	return nil
}

// NullTime scans a timestamp column that may be NULL into *T (nil for NULL).
type NullTime struct{ T **time.Time }

// Scan implements sql.Scanner.
func (t NullTime) Scan(v any) error {
	if v == nil {
		*t.T = nil
		return nil
	}
	r, err := value(v)
	if err != nil {
		return err
	}
	*t.T = &r
	return nil
}

func value(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v, nil
	case string:
		return ParseTime(v), nil
	case []byte:
		return ParseTime(string(v)), nil
	}
	return time.Time{}, fmt.Errorf("view: cannot read %T as a timestamp", v)
}

// ParseTime reads s as go-sqlite3 reads the text of a datetime column: in UTC
// unless s names an offset, the zero time when no layout fits.
func ParseTime(s string) time.Time {
	s = strings.TrimSuffix(s, "Z")
	if t, ok := parseUTC(s); ok {
		return t
	}
	for _, layout := range sqlite3.SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t
		}
	}
	return time.Time{}
}

// parseUTC reads "2006-01-02 15:04:05" (or with a T), an optional fraction
// of 1 to 9 digits and an optional "+00:00" or "-00:00": the text go-sqlite3
// writes for a UTC time. Anything else is left to the layouts.
func parseUTC(s string) (time.Time, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	rest, nsec := s[19:], 0
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || n > 10 {
			return time.Time{}, false
		}
		f, _ := digits(rest[1:n])
		for i := n; i < 10; i++ {
			f *= 10
		}
		nsec, rest = f, rest[n:]
	}
	if rest != "" && rest != "+00:00" && rest != "-00:00" {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // 31 April, 29 February of a common year: the layouts refuse them
		return time.Time{}, false
	}
	return t, true
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
