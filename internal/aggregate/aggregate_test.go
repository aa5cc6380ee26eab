package aggregate

import (
	"os"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
)

func TestParseZone(t *testing.T) {
	for _, ok := range []string{"", "UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Australia/Lord_Howe"} {
		if _, err := ParseZone(ok, "tz"); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"Local", "Mars/Olympus", "../etc/passwd", "Europe/Paris'; --", "europe/paris", strings.Repeat("A", 65), "Europe/", "/Paris"} {
		if _, err := ParseZone(bad, "tz"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestZoneTransitions: the offsets SQLite's buckets use are Go's, change
// exactly at the daylight-saving instants, and are constant for UTC.
func TestZoneTransitions(t *testing.T) {
	if off := sqliteOffset("e", time.UTC); off != "0" {
		t.Errorf("UTC offset %q", off)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	tr := zoneTransitions(paris)
	at := func(s string) int64 { v, _ := time.Parse(time.RFC3339, s); return v.Unix() }
	offAt := func(e int64) int {
		i := 0
		for i < len(tr.at) && e >= tr.at[i] {
			i++
		}
		return tr.off[i]
	}
	for _, c := range []struct {
		t   string
		off int
	}{
		{"2025-03-30T00:59:59Z", 3600}, {"2025-03-30T01:00:00Z", 7200},
		{"2025-10-26T00:59:59Z", 7200}, {"2025-10-26T01:00:00Z", 3600},
		{"1970-01-01T00:00:00Z", 3600}, {"2099-07-01T00:00:00Z", 7200},
	} {
		if got := offAt(at(c.t)); got != c.off {
			t.Errorf("%s: offset %d, want %d", c.t, got, c.off)
		}
	}
	// Every spring and autumn from 1976 to 2099; balanced: about
	// log2(transitions) comparisons per row.
	expr, depth := sqliteOffset("e", paris), 0
	for strings.HasPrefix(expr, "CASE WHEN e < ") {
		depth++
		expr = expr[strings.Index(expr, "THEN ")+5:]
	}
	if len(tr.at) != 2*(2099-1976+1) || depth > 9 {
		t.Errorf("%d transitions, depth %d", len(tr.at), depth)
	}
}

// TestLocalMidnight: a day's bucket starts at its first instant, also when
// a daylight-saving change swallows midnight (Santiago, 2022-09-11: 00:00
// → 01:00).
func TestLocalMidnight(t *testing.T) {
	for _, c := range []struct {
		zone       string
		y, m, d    int
		want       string
		bucketTime string // an instant of that day
	}{
		{"Europe/Paris", 2025, 3, 30, "2025-03-30T00:00:00+01:00", "2025-03-30T12:00:00Z"},
		{"Europe/Paris", 2025, 10, 26, "2025-10-26T00:00:00+02:00", "2025-10-26T12:00:00Z"},
		{"America/Santiago", 2022, 9, 11, "2022-09-11T01:00:00-03:00", "2022-09-11T12:00:00Z"},
		{"UTC", 2025, 1, 1, "2025-01-01T00:00:00Z", "2025-01-01T12:00:00Z"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got := localMidnight(c.y, time.Month(c.m), c.d, loc).Format(time.RFC3339); got != c.want {
			t.Errorf("%s %d-%d-%d: %s, want %s", c.zone, c.y, c.m, c.d, got, c.want)
		}
		v, err := bucketValue(c.bucketTime[:10], Day, loc)
		if err != nil || v.(time.Time).Format(time.RFC3339) != c.want {
			t.Errorf("bucketValue %s: %v %v", c.bucketTime, v, err)
		}
	}
}

func TestNames(t *testing.T) {
	for snake, camel := range map[string]string{"available_quantity": "availableQuantity", "unit_weight_kg": "unitWeightKg", "count": "count", "ship_to_country": "shipToCountry"} {
		if Camel(snake) != camel || Snake(camel) != snake {
			t.Errorf("%s ↔ %s: %s, %s", snake, camel, Camel(snake), Snake(camel))
		}
	}
}

// TestSpecsMatchTheSchema: every key and field names a real column of its
// table, shown under the names the GraphQL schema (generated from the
// specs) uses; the committed schema is the generated one.
func TestSpecsMatchTheSchema(t *testing.T) {
	b, err := os.ReadFile("../../graph/schema/aggregate.graphqls")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != GraphQLSchema() {
		t.Error("graph/schema/aggregate.graphqls is stale: run go generate ./...")
	}
	for _, s := range Specs {
		for _, k := range s.Keys {
			if k.Type == Enum && len(k.Values) == 0 {
				t.Errorf("%s.%s: an enum without values", s.Resource, k.Name)
			}
			if k.Type == Ref && (k.Ref == nil || !strings.HasSuffix(k.Column, "_id")) {
				t.Errorf("%s.%s: a reference without its foreign key", s.Resource, k.Name)
			}
		}
		// Every spec plans and builds for both dialects with all its keys
		// and every function of every field.
		q := Query{Bucket: Day, Params: RESTParams}
		for _, k := range s.Keys[:min(len(s.Keys), MaxGroupBy)] {
			q.GroupBy = append(q.GroupBy, k.Name)
		}
		for _, f := range s.Fields {
			for _, fn := range f.Funcs() {
				q.Select = append(q.Select, Measure{Func: fn, Field: f.Name})
			}
		}
		p, err := s.plan(q)
		if err != nil && !strings.Contains(err.Error(), "no time field") {
			t.Errorf("%s: %v", s.Resource, err)
			continue
		}
		if p != nil {
			for _, d := range []string{dialect.SQLite, dialect.Postgres} {
				if sql, _ := p.build(d, nil); !strings.Contains(sql, "GROUP BY") {
					t.Errorf("%s %s: %s", s.Resource, d, sql)
				}
			}
		}
	}
}
