package database

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
)

// A 2xx answer, a webhook attempt and a subscription message all follow the
// COMMIT that wrote them (docs/design/0001-durable-acknowledgements.md), so
// they are as durable as that COMMIT. On SQLite in WAL mode a COMMIT under
// synchronous=FULL returns after the log is fsynced, and other connections
// see the transaction only then: SQLite publishes a commit in the log's
// index after the fsync. Under NORMAL the log is fsynced at checkpoints
// only: a commit survives a crash of the process but may roll back in a
// power cut or an operating-system crash, after its answer and its events
// have left. FULL is the default; NORMAL is for those who trade that for
// speed (an fsync per group of commits instead of one per commit).

// SQLite's PRAGMA synchronous modes this service sets.
const (
	SynchronousFull   = "full"
	SynchronousNormal = "normal"
)

// Durability is what a commit that returned survives on a database.
type Durability struct {
	// Mode names the settings: "synchronous=full" on SQLite,
	// "fsync=on synchronous_commit=on" on PostgreSQL.
	Mode string
	// PowerSafe: a commit that returned survives a power cut or an
	// operating-system crash, not only a crash of this process.
	PowerSafe bool
	// Warning says why a commit is not power-safe when the database's own
	// settings (a DSN's _synchronous, the server's fsync or
	// synchronous_commit), not this service's configuration, decided it.
	Warning string

	synchronous int // SQLite: the PRAGMA synchronous expected on every connection
}

// sqliteLevels are PRAGMA synchronous's values, by the names and numbers
// go-sqlite3's _synchronous accepts.
var sqliteLevels = map[string]int{"0": 0, "off": 0, "1": 1, "normal": 1, "2": 2, "full": 2, "3": 3, "extra": 3}

var sqliteLevelNames = [...]string{"off", "normal", "full", "extra"}

// sqliteSynchronous decides SQLite's synchronous mode for dsn: the DSN's
// own _synchronous or _sync if it sets one (go-sqlite3 reads _sync last,
// so it wins), else configured ("" is full). It returns the value to add
// to the DSN ("" when the DSN sets its own) and the durability that
// results.
func sqliteSynchronous(dsn, configured string) (string, Durability, error) {
	switch configured {
	case "", SynchronousFull:
		configured = SynchronousFull
	case SynchronousNormal:
	default:
		return "", Durability{}, fmt.Errorf("synchronous %q: must be %s or %s", configured, SynchronousFull, SynchronousNormal)
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
		lvl := sqliteLevels[configured]
		return strings.ToUpper(configured), Durability{Mode: "synchronous=" + configured, PowerSafe: lvl >= 2, synchronous: lvl}, nil
	}
	lvl, ok := sqliteLevels[strings.ToLower(val)]
	if !ok {
		return "", Durability{}, fmt.Errorf("%s=%s: must be OFF, NORMAL, FULL or EXTRA (or 0 to 3)", key, val)
	}
	d := Durability{Mode: "synchronous=" + sqliteLevelNames[lvl], PowerSafe: lvl >= 2, synchronous: lvl}
	if lvl < 2 {
		d.Warning = fmt.Sprintf("the DSN sets %s=%s, weaker than FULL: a commit that was answered, and the events, webhook attempts and subscription messages it sent, may be lost in a power cut or an operating-system crash", key, val)
	}
	return "", d, nil
}

// checkSynchronous checks that a connection runs with the synchronous mode
// decided: the DSN parameter is the driver's, and a driver that dropped it
// would silently weaken every commit.
func checkSynchronous(ctx context.Context, db *sql.DB, d Durability) error {
	var lvl int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&lvl); err != nil {
		return fmt.Errorf("PRAGMA synchronous: %w", err)
	}
	if lvl != d.synchronous {
		return fmt.Errorf("PRAGMA synchronous = %d, want %d (%s)", lvl, d.synchronous, d.Mode)
	}
	return nil
}

// postgresDurability reads the settings that make a PostgreSQL commit
// durable, as this service's sessions have them (the server's, a role's or
// a database's, or the DSN's): fsync, and synchronous_commit (every value
// but off flushes the commit's WAL locally before COMMIT returns).
func postgresDurability(ctx context.Context, db *sql.DB) (Durability, error) {
	var fsync, syncCommit string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit); err != nil {
		return Durability{}, fmt.Errorf("read fsync and synchronous_commit: %w", err)
	}
	d := Durability{Mode: "fsync=" + fsync + " synchronous_commit=" + syncCommit, synchronous: -1}
	var off []string
	if fsync == "off" {
		off = append(off, "fsync is off: a power cut or an operating-system crash may lose committed transactions or corrupt the database")
	}
	if syncCommit == "off" {
		off = append(off, "synchronous_commit is off: a crash of the server may lose the last committed transactions")
	}
	d.PowerSafe = len(off) == 0
	if len(off) > 0 {
		d.Warning = "PostgreSQL " + strings.Join(off, "; ") + "; answers, webhook attempts and subscription messages may tell of writes that are then lost"
	}
	return d, nil
}
