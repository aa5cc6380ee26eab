package view

import "time"

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func tsp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

// Timestamp is a time as every representation writes it: RFC 3339 in UTC,
// with as many fractional digits as it has.
func Timestamp(t time.Time) string { return ts(t) }
