// Package postgres opens a PostgreSQL database through pgx with the session
// settings this service relies on, and reads what makes its commits
// durable. It holds what only PostgreSQL needs to be opened; internal/database
// picks it for a postgres:// DSN.
package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// DB is an open PostgreSQL database.
type DB struct {
	SQL *sql.DB
	// Source is the DSN with any password masked, for logs.
	Source string
	// Durability is what a commit that returned survives.
	Durability Durability
}

// Durability is what a commit that returned survives.
type Durability struct {
	// Mode names the settings: "fsync=on synchronous_commit=on".
	Mode string
	// PowerSafe: a commit that returned survives a power cut or an
	// operating-system crash, not only a crash of this process.
	PowerSafe bool
	// Warning says why a commit is not power-safe when the server's fsync
	// or synchronous_commit (a role's, a database's or the DSN's) decided it.
	Warning string
}

// Open opens dsn, a postgres:// URL, with a pool of maxOpen connections
// (0: 20) opened by open (nil: sql.Open; the tracing wrapper comes in here),
// and reads the settings that make a commit durable.
func Open(ctx context.Context, dsn string, maxOpen int, open func(driverName, dsn string) (*sql.DB, error)) (*DB, error) {
	db, source, err := openPool(dsn, maxOpen, open)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", source, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", source, err)
	}
	durability, err := readDurability(pingCtx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &DB{SQL: db, Source: source, Durability: durability}, nil
}

// plannerDefaults are session settings sent with every connection unless
// the DSN sets them. random_page_cost 1.1 (instead of 4) tells the planner
// that random reads are cheap, as they are on SSDs and for data in memory:
// without it, a filtered page ordered by id ("parts whose name contains
// bolt, first 50") became a full scan and a sort (30 ms on 20,000 parts)
// instead of a walk of the primary key that stops after the page (1.5 ms).
var plannerDefaults = [][2]string{{"random_page_cost", "1.1"}}

// withDefaults adds plannerDefaults to a postgres:// URL as runtime
// parameters (pgx sends unknown URL parameters to the server as settings).
func withDefaults(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn // pgx reports the malformed DSN
	}
	q := u.Query()
	for _, kv := range plannerDefaults {
		if q.Get(kv[0]) == "" {
			q.Set(kv[0], kv[1])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// readDurability reads the settings that make a commit durable, as this
// service's sessions have them (the server's, a role's or a database's, or
// the DSN's): fsync, and synchronous_commit (every value but off flushes
// the commit's WAL locally before COMMIT returns).
func readDurability(ctx context.Context, db *sql.DB) (Durability, error) {
	var fsync, syncCommit string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit); err != nil {
		return Durability{}, fmt.Errorf("read fsync and synchronous_commit: %w", err)
	}
	d := Durability{Mode: "fsync=" + fsync + " synchronous_commit=" + syncCommit}
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

// openPool opens dsn's pool of maxOpen connections (0: 20) with open (nil:
// sql.Open) and the pgx defaults, and names it for logs without its password:
// the primary's pool and a replica's are the same kind of pool.
func openPool(dsn string, maxOpen int, open func(driverName, dsn string) (*sql.DB, error)) (*sql.DB, string, error) {
	source := dsn
	if u, err := url.Parse(dsn); err == nil {
		source = u.Redacted()
	}
	if open == nil {
		open = sql.Open
	}
	db, err := open("pgx", withDefaults(dsn))
	if err != nil {
		return nil, source, err
	}
	if maxOpen == 0 {
		maxOpen = 20
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, source, nil
}
