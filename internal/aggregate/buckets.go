package aggregate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"logistics/internal/apperr"
)

// Time buckets, in UTC or an IANA time zone, across daylight-saving changes.
//
// A day, week (from Monday) or month bucket is a span of the zone's local
// calendar: the database computes the local date of each row's instant and
// groups by it, and Go turns the date into the bucket's first instant in the
// zone (a day of 23 or 25 hours is one bucket). An hour bucket is an hour of
// elapsed time that starts on a whole local hour: an instant's bucket is the
// instant minus its local minutes and seconds, so the repeated hour of an
// autumn change gives two buckets (02:00+02:00 and 02:00+01:00), never one
// of two hours.
//
// PostgreSQL knows the zones: the local time is `col AT TIME ZONE 'zone'`.
// SQLite knows none, so the local time is the instant plus the zone's UTC
// offset, which Go computes: the offset is constant between the zone's
// transitions, and Go lists the transitions from 1970 to 2100 (time.ZoneBounds);
// the SQL picks the offset of each row with a balanced CASE over them — a
// binary search, about nine comparisons for a zone that changes twice a year
// — cached per zone. (Times outside 1970–2100 take the offset of the nearest
// end.) Both ways the same local dates come out, so both databases give the
// same buckets; the DST test compares them with buckets computed in Go.

// ParseZone reads a time zone name: "UTC" (also the empty string) or an
// IANA name such as Europe/Paris. param names the parameter in errors.
func ParseZone(name, param string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if len(name) > MaxZone || !zoneName.MatchString(name) || name == "Local" {
		return nil, apperr.Invalid(param, "%q is not an IANA time zone name such as Europe/Paris", truncate(name))
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, apperr.Invalid(param, "unknown time zone %q; use an IANA name such as Europe/Paris, or UTC", truncate(name))
	}
	return loc, nil
}

// zoneName is what an IANA zone name looks like (and all that is ever
// written into SQL as a literal): no quotes, no "..", not "Local".
var zoneName = regexp.MustCompile(`^(?:[A-Z][A-Za-z0-9_+\-]*)(?:/[A-Za-z0-9_+\-]+){0,3}$`)

// bucketExpr is the SQL of the bucket of the time column col: a local date
// ("YYYY-MM-DD" on SQLite, a local timestamp on PostgreSQL) for day, week and
// month; for hour, the bucket's first instant (Unix seconds on SQLite, a
// timestamptz on PostgreSQL). bucketValue reads either.
func bucketExpr(d, col string, b Bucket, loc *time.Location) string {
	if d == dialect.Postgres {
		z := "'" + loc.String() + "'" // checked by ParseZone
		local := "(" + col + " AT TIME ZONE " + z + ")"
		if b == Hour {
			return "(" + col + " - (" + local + " - date_trunc('hour', " + local + ")))"
		}
		return "date_trunc('" + string(b) + "', " + local + ")"
	}
	e := "unixepoch(" + col + ")"
	off := sqliteOffset(e, loc)
	if off == "0" { // UTC: SQLite's date functions read the stored text
		switch b {
		case Hour:
			return "(" + e + " - (" + e + " % 3600 + 3600) % 3600)"
		case Day:
			return "date(" + col + ")"
		case Week:
			return "date(" + col + ", 'weekday 0', '-6 days')"
		default:
			return "strftime('%Y-%m-01', " + col + ")"
		}
	}
	local := "(" + e + " + " + off + ")"
	switch b {
	case Hour:
		return "(" + e + " - ((" + local + " % 3600) + 3600) % 3600)"
	case Day:
		return "date(" + local + ", 'unixepoch')"
	case Week:
		return "date(" + local + ", 'unixepoch', 'weekday 0', '-6 days')"
	default: // Month
		return "strftime('%Y-%m-01', " + local + ", 'unixepoch')"
	}
}

// sqliteOffset is the SQL of loc's UTC offset in seconds at the Unix time
// e: a constant for a zone without transitions, else a balanced CASE.
func sqliteOffset(e string, loc *time.Location) string {
	tr := zoneTransitions(loc)
	var b strings.Builder
	var tree func(at []int64, off []int)
	tree = func(at []int64, off []int) {
		if len(at) == 0 {
			b.WriteString(strconv.Itoa(off[0]))
			return
		}
		m := len(at) / 2
		fmt.Fprintf(&b, "CASE WHEN %s < %d THEN ", e, at[m])
		tree(at[:m], off[:m+1])
		b.WriteString(" ELSE ")
		tree(at[m+1:], off[m+1:])
		b.WriteString(" END")
	}
	tree(tr.at, tr.off)
	return b.String()
}

// transitions are a zone's offsets: off[i] holds from at[i-1] (inclusive)
// to at[i] (exclusive); off[0] before at[0], the last one after the last.
type transitions struct {
	at  []int64
	off []int
}

var transitionCache sync.Map // zone name → transitions

var (
	rangeStart = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	rangeEnd   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

func zoneTransitions(loc *time.Location) transitions {
	if v, ok := transitionCache.Load(loc.String()); ok {
		return v.(transitions)
	}
	offset := func(t time.Time) int { _, o := t.In(loc).Zone(); return o }
	tr := transitions{off: []int{offset(rangeStart)}}
	for t := rangeStart; t.Before(rangeEnd); {
		_, next := t.In(loc).ZoneBounds()
		if next.IsZero() || !next.After(t) {
			// ZoneBounds stalls at some period ends (the last day of a
			// leap year, beyond the zone file's explicit transitions):
			// walk a day, and find a change within it below.
			next = t.Add(24 * time.Hour)
		}
		if o := offset(next); o != tr.off[len(tr.off)-1] {
			// The first second with the new offset, in (t, next].
			lo, hi := t, next
			for hi.Sub(lo) > time.Second {
				mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
				if !mid.After(lo) {
					mid = lo.Add(time.Second)
				}
				if offset(mid) == o {
					hi = mid
				} else {
					lo = mid
				}
			}
			if hi.Before(rangeEnd) {
				tr.at = append(tr.at, hi.Unix())
				tr.off = append(tr.off, o)
			}
		}
		t = next
	}
	transitionCache.Store(loc.String(), tr)
	return tr
}

// bucketValue turns what bucketExpr's SQL returned into the bucket's first
// instant in loc.
func bucketValue(v any, b Bucket, loc *time.Location) (any, error) {
	switch x := v.(type) {
	case int64: // SQLite hour: Unix seconds
		return time.Unix(x, 0).In(loc), nil
	case time.Time:
		if b == Hour { // PostgreSQL hour: the instant
			return x.In(loc), nil
		}
		// PostgreSQL day, week, month: a local timestamp (no zone), read
		// as UTC wall time.
		return localMidnight(x.Year(), x.Month(), x.Day(), loc), nil
	case string, []byte:
		t, err := time.Parse("2006-01-02", text(x))
		if err != nil {
			return nil, fmt.Errorf("aggregate: bucket %q: %w", text(x), err)
		}
		return localMidnight(t.Year(), t.Month(), t.Day(), loc), nil
	}
	return nil, fmt.Errorf("aggregate: unexpected bucket %T", v)
}

// localMidnight is the first instant of the local date in loc: midnight, or
// the end of a daylight-saving gap that swallows midnight (time.Date may
// then pick the instant before the gap, which is on the day before).
func localMidnight(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	for i := 0; i < 48; i++ {
		ly, lm, ld := t.Date()
		if ly == y && lm == m && ld == d {
			break
		}
		t = t.Add(30 * time.Minute)
	}
	// Within the day: step back while the previous instants are still on it
	// (a gap that ends before t).
	for i := 0; i < 48; i++ {
		prev := t.Add(-30 * time.Minute)
		py, pm, pd := prev.Date()
		if py != y || pm != m || pd != d {
			break
		}
		t = prev
	}
	return t
}
