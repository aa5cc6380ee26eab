package view_test

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"logistics/internal/view"
)

// driverParse is go-sqlite3's own reading of a datetime column's text
// (sqlite3.go, SQLiteRows.Next), the reference Parse must match.
func driverParse(s string) time.Time {
	s = strings.TrimSuffix(s, "Z")
	for _, layout := range sqlite3.SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t
		}
	}
	return time.Time{}
}

var texts = []string{
	"2026-11-23 12:35:08.123456+00:00", "2026-11-23 12:35:08+00:00", "2026-11-23 12:35:08.1+00:00",
	"2026-11-23 12:35:08.123456789+00:00", "2026-11-23T12:35:08.5-00:00", "2026-11-23 12:35:08.123456",
	"2026-11-23 12:35:08Z", "2026-11-23T12:35:08.000001Z", "2026-11-23 12:35:08.123+02:00",
	"2026-11-23 12:35:08-05:30", "2026-11-23 12:35", "2026-11-23", "2024-02-29 00:00:00", "2025-02-29 00:00:00",
	"2026-04-31 10:00:00", "2026-13-01 10:00:00", "2026-11-23 24:00:00", "2026-11-23 12:60:00",
	"2026-11-23 12:35:60", "2026-11-23 12:35:08.", "2026-11-23 12:35:08.1234567891+00:00",
	"2026-11-23 12:35:08 +00:00", "2026-11-23 12:35:08+0000", "not a time", "", "2026-1-23 12:35:08",
	"0000-01-01 00:00:00", "9999-12-31 23:59:59.999999999+00:00", "2026-11-23 12:35:08+00:00Z",
}

func TestParseMatchesDriverLayouts(t *testing.T) {
	for _, s := range texts {
		if got, want := view.ParseTime(s), driverParse(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := view.ParseTime(s), driverParse(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestSameAsDriver reads the same stored values by name (go-sqlite3 parses
// them) and through Column (Time and NullTime parse them): both agree, for
// values go-sqlite3 wrote itself and for stored text of other shapes.
func TestSameAsDriver(t *testing.T) {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER PRIMARY KEY, at DATETIME, maybe DATETIME)`); err != nil {
		t.Fatal(err)
	}
	berlin := time.FixedZone("CET", 3600)
	written := []time.Time{
		time.Date(2026, 11, 23, 12, 35, 8, 123456000, time.UTC),
		time.Date(2026, 11, 23, 12, 35, 8, 0, time.UTC),
		time.Date(2026, 11, 23, 12, 35, 8, 1, time.UTC),
		time.Date(2026, 11, 23, 12, 35, 8, 500000000, berlin),
	}
	n := 0
	for _, v := range written {
		n++
		if _, err := db.Exec(`INSERT INTO t VALUES (?, ?, ?)`, n, v, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range texts {
		n++
		if _, err := db.Exec(`INSERT INTO t VALUES (?, ?, NULL)`, n, s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(`SELECT n, at, maybe, ` + view.TimeColumn("sqlite3", "at") + `, ` + view.TimeColumn("sqlite3", "maybe") + ` FROM t ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	read := 0
	for rows.Next() {
		var k int
		var byName time.Time
		var byNameMaybe sql.NullTime
		var fast time.Time
		var fastMaybe *time.Time
		if err := rows.Scan(&k, &byName, &byNameMaybe, view.Time{T: &fast}, view.NullTime{T: &fastMaybe}); err != nil {
			t.Fatalf("row %d: %v", k, err)
		}
		if !reflect.DeepEqual(byName, fast) {
			t.Errorf("row %d: by name %v, through Column %v", k, byName, fast)
		}
		if byNameMaybe.Valid != (fastMaybe != nil) || (fastMaybe != nil && !reflect.DeepEqual(byNameMaybe.Time, *fastMaybe)) {
			t.Errorf("row %d: nullable by name %v, through Column %v", k, byNameMaybe, fastMaybe)
		}
		read++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if read != n {
		t.Fatalf("read %d rows, wrote %d", read, n)
	}
	if k := written[0]; !reflect.DeepEqual(view.ParseTime(k.Format(sqlite3.SQLiteTimestampFormats[0])), k) {
		t.Errorf("a UTC time does not read back as itself")
	}
}

func TestScanRefusesNullAndOtherTypes(t *testing.T) {
	var v time.Time
	if err := (view.Time{T: &v}).Scan(nil); err == nil {
		t.Error("NULL into Time: no error")
	}
	if err := (view.Time{T: &v}).Scan(int64(3)); err == nil {
		t.Error("an integer into Time: no error")
	}
	now := time.Now()
	if err := (view.Time{T: &v}).Scan(now); err != nil || !v.Equal(now) {
		t.Errorf("time.Time (PostgreSQL) into Time: %v, %v", v, err)
	}
	p := &now
	if err := (view.NullTime{T: &p}).Scan(nil); err != nil || p != nil {
		t.Errorf("NULL into NullTime: %v, %v", p, err)
	}
}

func BenchmarkParse(b *testing.B) {
	s := "2026-11-23 12:35:08.123456+00:00"
	b.Run("sqltime", func(b *testing.B) {
		for b.Loop() {
			view.ParseTime(s)
		}
	})
	b.Run("driver", func(b *testing.B) {
		for b.Loop() {
			driverParse(s)
		}
	})
}
