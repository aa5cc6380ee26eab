package generated

// Hand-written: the fast path's direct writers against gqlgen's marshal
// functions, which they must match byte for byte.

import (
	"bytes"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

func FuzzWriteGQLString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote"`, `back\slash`, "\t\r\n\x00\x01\x1f\x7f", "é ü 日本 🚚",
		"\xff\xfe", "\xc2\"", "\xe6\x97", "<&>", "\u2028\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&want)
		writeGQLString(&got, s)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%q: wrote %s, gqlgen %s", s, got.Bytes(), want.Bytes())
		}
	})
}

func FuzzWriteTime(f *testing.F) {
	f.Add(int64(0), int64(1), 0)
	f.Add(int64(1795000000), int64(123456789), 3600)
	f.Add(int64(-62135596800), int64(0), -5*3600-1800)
	f.Add(int64(253402300799), int64(999999999), 14*3600)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec%1e9).In(time.FixedZone("", offset%(18*3600)))
		if tm.IsZero() {
			return // gqlgen's path: null
		}
		var want bytes.Buffer
		graphql.MarshalTime(tm).MarshalGQL(&want)
		w := new(fastWriter)
		w.time(tm)
		if !bytes.Equal(w.b.Bytes(), want.Bytes()) {
			t.Fatalf("%v: wrote %s, gqlgen %s", tm, w.b.Bytes(), want.Bytes())
		}
	})
}
