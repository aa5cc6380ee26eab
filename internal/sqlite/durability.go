package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
)

// A 2xx answer, a webhook attempt and a subscription message all follow the
// COMMIT that wrote them (docs/design/0001-durable-acknowledgements.md), so
// they are as durable as that COMMIT. In WAL mode a COMMIT under
// synchronous=FULL returns after the log is fsynced, and other connections
// see the transaction only then: SQLite publishes a commit in the log's
// index after the fsync. Under NORMAL the log is fsynced at checkpoints
// only: a commit survives a crash of the process but may roll back in a
// power cut or an operating-system crash, after its answer and its events
// have left. FULL is the default; NORMAL is for those who trade that for
// speed (an fsync per group of commits instead of one per commit).

// The PRAGMA synchronous modes this service sets.
const (
	SynchronousFull   = "full"
	SynchronousNormal = "normal"
)

// Durability is what a commit that returned survives.
type Durability struct {
	// Mode names the setting: "synchronous=full".
	Mode string
	// PowerSafe: a commit that returned survives a power cut or an
	// operating-system crash, not only a crash of this process.
	PowerSafe bool
	// Warning says why a commit is not power-safe when the DSN's own
	// _synchronous, not this service's configuration, decided it.
	Warning string
}

// levels are PRAGMA synchronous's values, by the names and numbers
// go-sqlite3's _synchronous accepts.
var levels = map[string]int{"0": 0, "off": 0, "1": 1, "normal": 1, "2": 2, "full": 2, "3": 3, "extra": 3}

var levelNames = [...]string{"off", "normal", "full", "extra"}

// chooseSynchronous decides the synchronous mode for dsn: the DSN's own
// _synchronous or _sync if it sets one (go-sqlite3 reads _sync last, so it
// wins), else configured ("" is full). It returns the value to add to the
// DSN ("" when the DSN sets its own), the PRAGMA's number every connection
// must then report, and the durability that results.
func chooseSynchronous(dsn, configured string) (string, int, Durability, error) {
	switch configured {
	case "", SynchronousFull:
		configured = SynchronousFull
	case SynchronousNormal:
	default:
		return "", 0, Durability{}, fmt.Errorf("synchronous %q: must be %s or %s", configured, SynchronousFull, SynchronousNormal)
	}
	var q url.Values
	if i := strings.IndexByte(dsn, '?'); i >= 0 {
		q, _ = url.ParseQuery(dsn[i+1:]) // go-sqlite3 parses it the same way and reports errors
	}
	key, val := "", ""
	for _, k := range []string{"_synchronous", "_sync"} {
		if v := q.Get(k); v != "" {
			key, val = k, v
		}
	}
	if key == "" {
		lvl := levels[configured]
		return strings.ToUpper(configured), lvl, Durability{Mode: "synchronous=" + configured, PowerSafe: lvl >= 2}, nil
	}
	lvl, ok := levels[strings.ToLower(val)]
	if !ok {
		return "", 0, Durability{}, fmt.Errorf("%s=%s: must be OFF, NORMAL, FULL or EXTRA (or 0 to 3)", key, val)
	}
	d := Durability{Mode: "synchronous=" + levelNames[lvl], PowerSafe: lvl >= 2}
	if lvl < 2 {
		d.Warning = fmt.Sprintf("the DSN sets %s=%s, weaker than FULL: a commit that was answered, and the events, webhook attempts and subscription messages it sent, may be lost in a power cut or an operating-system crash", key, val)
	}
	return "", lvl, d, nil
}

// checkSynchronous checks that a connection runs with the synchronous
// level decided (mode names it): the DSN parameter is the driver's, and a
// driver that dropped it would silently weaken every commit.
func checkSynchronous(ctx context.Context, db *sql.DB, level int, mode string) error {
	var lvl int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&lvl); err != nil {
		return fmt.Errorf("PRAGMA synchronous: %w", err)
	}
	if lvl != level {
		return fmt.Errorf("PRAGMA synchronous = %d, want %d (%s)", lvl, level, mode)
	}
	return nil
}
