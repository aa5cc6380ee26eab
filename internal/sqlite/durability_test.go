package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"logistics/internal/dbtest"
)

// TestSQLiteSynchronousOnEveryConnection: every connection of the pool,
// those opened after the pool recycled its connections included, runs with
// the configured synchronous mode: FULL by default, NORMAL when asked.
func TestSQLiteSynchronousOnEveryConnection(t *testing.T) {
	for _, tc := range []struct {
		opt       string
		want      int
		powerSafe bool
	}{
		{"", 2, true},
		{SynchronousFull, 2, true},
		{SynchronousNormal, 1, false},
	} {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), Config{Synchronous: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		if n := dbtest.Synchronous(t, db.SQL, tc.want); n < 3*8 {
			t.Errorf("%q: checked %d connections", tc.opt, n)
		}
		if d := db.Durability; d.PowerSafe != tc.powerSafe || d.Warning != "" || !strings.HasPrefix(d.Mode, "synchronous=") {
			t.Errorf("%q: durability %+v", tc.opt, d)
		}
		db.Close()
	}
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), Config{Synchronous: "off"}); err == nil || !strings.Contains(err.Error(), "full or normal") {
		t.Errorf("synchronous off: %v", err)
	}
}

// TestSQLiteDSNSynchronousWins: a DSN that sets its own _synchronous (or
// go-sqlite3's _sync) keeps it on every connection, with a warning when it
// is weaker than FULL.
func TestSQLiteDSNSynchronousWins(t *testing.T) {
	for _, tc := range []struct {
		param, opt string
		want       int
		warns      bool
	}{
		{"_synchronous=NORMAL", "", 1, true},
		{"_sync=OFF", SynchronousFull, 0, true},
		{"_synchronous=1", "", 1, true},
		{"_synchronous=EXTRA", SynchronousNormal, 3, false},
		{"_synchronous=full", SynchronousNormal, 2, false},
		{"_synchronous=FULL&_sync=normal", "", 1, true}, // go-sqlite3 reads _sync last
	} {
		dsn := "file:" + filepath.Join(t.TempDir(), "x.db") + "?" + tc.param
		db, err := Open(context.Background(), dsn, Config{Synchronous: tc.opt})
		if err != nil {
			t.Fatalf("%s: %v", tc.param, err)
		}
		dbtest.Synchronous(t, db.SQL, tc.want)
		d := db.Durability
		if (d.Warning != "") != tc.warns || d.PowerSafe != (tc.want >= 2) {
			t.Errorf("%s: durability %+v", tc.param, d)
		}
		if tc.warns && !strings.Contains(d.Warning, "weaker than FULL") {
			t.Errorf("%s: warning %q", tc.param, d.Warning)
		}
		db.Close()
	}
	if _, err := Open(context.Background(), "file:"+filepath.Join(t.TempDir(), "x.db")+"?_synchronous=sometimes", Config{}); err == nil {
		t.Error("_synchronous=sometimes: opened")
	}
}
