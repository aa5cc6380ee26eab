// Package database opens an environment's database — an embedded SQLite file
// by default, or PostgreSQL from a postgres:// DSN — and applies the schema.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/migrate"
	"logistics/internal/eventlog"
	"logistics/internal/fieldcheck"
	"logistics/internal/tracing"
)

// DB is an open database with the ent client over it.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB
	Dialect string // dialect.SQLite or dialect.Postgres
	Source  string // the DSN with any password masked, for logs
	// Durability is what a commit that returned survives (durability.go).
	Durability Durability

	gate        *writeGate    // SQLite: one write transaction at a time from this process (gate.go)
	checkpoints *checkpointer // SQLite files: the log's checkpoints (checkpoint.go)
}

// WriteTx is a write transaction for hand-written SQL: database/sql's Tx
// on PostgreSQL, a transaction of the write gate's groups on SQLite.
type WriteTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	Commit() error
	Rollback() error
}

// BeginWrite begins a write transaction for hand-written SQL (the
// benchmark's floor) the way ent's transactions begin: on SQLite through
// the write gate, in the group left open if there is one (gate.go), with
// BEGIN IMMEDIATE otherwise; on PostgreSQL with database/sql's BeginTx.
func (d *DB) BeginWrite(ctx context.Context) (WriteTx, error) {
	// A failed begin returns a nil interface, not one holding a nil *Tx.
	if d.gate == nil {
		tx, err := d.SQL.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return tx, nil
	}
	tx, err := beginGrouped(ctx, d.SQL, d.gate)
	if err != nil {
		return nil, err
	}
	return tx, nil
}

// IsPostgres reports whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Options tune how a database is opened.
type Options struct {
	// Driver wraps the ent driver, e.g. to count statements in tests.
	Driver func(dialect.Driver) dialect.Driver
	// MaxOpenConns caps the pool (0: a default that suits the dialect).
	MaxOpenConns int
	// SQLiteMemory bounds, softly, the bytes SQLite keeps in memory — page
	// caches above all — across the whole process, every database together:
	// 0 DefaultSQLiteMemory, < 0 no bound. The bound is SQLite's, one per
	// process; the last SQLite database opened sets it.
	SQLiteMemory int64
	// Synchronous is SQLite's PRAGMA synchronous on every connection:
	// SynchronousFull ("" too) or SynchronousNormal. A DSN that sets its
	// own _synchronous (or _sync) keeps it (durability.go).
	Synchronous string
	// NoCheckpoints leaves the log's checkpoints to the other processes
	// on the file: a command that only reads (backup) would otherwise
	// take the write lock from a serving process's writers.
	NoCheckpoints bool
	// Tracing, when on, makes a span per SQL statement of a traced
	// operation (internal/tracing.OpenDB): ent's and the hand-written SQL's.
	Tracing *tracing.Provider
}

// Open opens dsn: a postgres:// URL, or a SQLite file path (created with its
// directory when missing). SQLite runs in WAL mode with foreign keys on, a busy
// timeout, write transactions that take the lock up front, a case-sensitive
// LIKE so that substring filters match PostgreSQL, and synchronous=FULL
// unless opt or the DSN says otherwise (durability.go). On PostgreSQL it
// reads the settings that make a commit durable (DB.Durability).
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	var (
		db         *sql.DB
		err        error
		dia        string
		source     = dsn
		maxOpen    = opt.MaxOpenConns
		durability Durability
	)
	if IsPostgres(dsn) {
		dia = dialect.Postgres
		db, err = tracing.OpenDB(opt.Tracing, "pgx", postgresDSN(dsn), "postgresql")
		if u, perr := url.Parse(dsn); perr == nil {
			source = u.Redacted()
		}
		if maxOpen == 0 {
			maxOpen = 20
		}
	} else {
		dia = dialect.SQLite
		path := strings.TrimPrefix(dsn, "file:")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path != "" && path != ":memory:" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, fmt.Errorf("database: %w", err)
			}
		}
		limitSQLiteMemory(opt.SQLiteMemory)
		var sqliteMode string
		if sqliteMode, durability, err = sqliteSynchronous(dsn, opt.Synchronous); err != nil {
			return nil, fmt.Errorf("database: %s: %w", source, err)
		}
		db, err = tracing.OpenDB(opt.Tracing, sqliteDriver, sqliteDSN(dsn, sqliteMode), "sqlite")
		if maxOpen == 0 {
			maxOpen = 8
		}
	}
	if err != nil {
		return nil, fmt.Errorf("database: open %s: %w", source, err)
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("database: connect to %s: %w", source, err)
	}
	if dia == dialect.SQLite {
		// The write path leaves references to the foreign keys (see
		// internal/service/refs.go): a DSN that turns them off (_fk=0,
		// _foreign_keys=0) would let a create keep an id that does not exist.
		var fk int
		if err := db.QueryRowContext(pingCtx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			db.Close()
			return nil, fmt.Errorf("database: %s: foreign keys must be on (foreign_keys = %d, %v): remove _fk=0 or _foreign_keys=0 from the DSN", source, fk, err)
		}
		if err := checkSynchronous(pingCtx, db, durability); err != nil {
			db.Close()
			return nil, fmt.Errorf("database: %s: %w", source, err)
		}
	} else {
		if durability, err = postgresDurability(pingCtx, db); err != nil {
			db.Close()
			return nil, fmt.Errorf("database: %s: %w", source, err)
		}
	}
	var (
		drv  dialect.Driver = entsql.OpenDB(dia, db)
		gate *writeGate
	)
	if dia == dialect.SQLite {
		gate = newWriteGate(sqliteBusyTimeout)
		drv = &gatedDriver{Driver: drv, db: db, gate: gate}
	}
	if opt.Driver != nil {
		drv = opt.Driver(drv)
	}
	client := ent.NewClient(ent.Driver(drv))
	client.Use(fieldcheck.Hook()) // every invalid field at once, before ent's first-error check
	client.Use(utcTimes)          // times stored in UTC: SQLite compares them as text
	// Every endpoint change gives the endpoints' stamp a new value in its
	// transaction: the webhook fan-out's cache is checked against it.
	client.WebhookEndpoint.Use(eventlog.StampEndpoints)
	if dia == dialect.Postgres {
		client.Event.Intercept(numberedEventsOnly)
	}
	d := &DB{Client: client, SQL: db, Dialect: dia, Source: source, Durability: durability, gate: gate}
	if dia == dialect.SQLite && !inMemory(dsn) && !opt.NoCheckpoints {
		d.checkpoints = startCheckpointer(db, gate, source)
	}
	return d, nil
}

// inMemory reports whether a SQLite DSN names an in-memory database (no
// log to checkpoint).
func inMemory(dsn string) bool {
	return strings.Contains(dsn, ":memory:") || strings.Contains(dsn, "mode=memory")
}

// numberedEventsOnly keeps every query of events to numbered ones. On
// PostgreSQL an event is committed a moment before the sequencer numbers it
// (internal/eventlog/sequencer.go); no reader — lists, node(id:), GET
// /v1/events/{id}, webhook payloads — sees it before it has its number.
var numberedEventsOnly = ent.TraverseFunc(func(_ context.Context, q ent.Query) error {
	if eq, ok := q.(*ent.EventQuery); ok {
		eq.Where(event.SequenceNotNil())
	}
	return nil
})

// postgresPlannerDefaults are session settings sent with every PostgreSQL
// connection unless the DSN sets them. random_page_cost 1.1 (instead of 4)
// tells the planner that random reads are cheap, as they are on SSDs and for
// data in memory: without it, a filtered page ordered by id ("parts whose
// name contains bolt, first 50") became a full scan and a sort (30 ms on
// 20,000 parts) instead of a walk of the primary key that stops after the
// page (1.5 ms).
var postgresPlannerDefaults = [][2]string{{"random_page_cost", "1.1"}}

// postgresDSN adds postgresPlannerDefaults to a postgres:// URL as runtime
// parameters (pgx sends unknown URL parameters to the server as settings).
func postgresDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn // pgx reports the malformed DSN
	}
	q := u.Query()
	for _, kv := range postgresPlannerDefaults {
		if q.Get(kv[0]) == "" {
			q.Set(kv[0], kv[1])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sqliteBusyTimeout bounds a SQLite writer's wait for the lock: in SQLite's
// busy handler (other processes) and at this process's write gate.
const sqliteBusyTimeout = 10 * time.Second

// sqliteDSN adds the options we rely on unless the caller set them;
// synchronous is the PRAGMA synchronous to ask for ("" when the DSN sets
// its own).
func sqliteDSN(dsn, synchronous string) string {
	if !strings.HasPrefix(dsn, "file:") {
		dsn = "file:" + dsn
	}
	defaults := [][2]string{
		{"_fk", "1"},
		{"_journal_mode", "WAL"},
		{"_busy_timeout", strconv.Itoa(int(sqliteBusyTimeout / time.Millisecond))},
		{"_synchronous", synchronous},
		{"_txlock", "immediate"},
		{"_cslike", "1"},
		{"_cache_size", "-65536"}, // 64 MiB page cache per connection: bulk inserts touch many index pages
		// Prepared statements kept per connection: ent sends the same few
		// statement texts again and again, and preparing them was ~8% of a
		// read's CPU. PostgreSQL's pgx caches statements already.
		{"_stmt_cache_size", "128"},
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	for _, kv := range defaults {
		if kv[1] != "" && !strings.Contains(dsn, kv[0]+"=") {
			dsn += sep + kv[0] + "=" + kv[1]
			sep = "&"
		}
	}
	return dsn
}

// migrationLock is the PostgreSQL advisory-lock key that serialises schema
// changes when several instances start at once ("logi" in ASCII).
const migrationLock = 0x6c6f6769

// migrating serialises migrations within one process: ent's migration
// completes its package-level table definitions in place (atlas.go,
// setupTables), so two at once wrote the same maps — a fatal "concurrent
// map writes" in CI when TestInstancesStartingTogether opened three apps in
// one process. One process's environments migrate one after the other
// anyway; this holds for tests and anything that opens apps side by side.
var migrating sync.Mutex

// Migrate creates or updates the schema. On PostgreSQL it holds an advisory
// lock, so instances starting together do not race each other; within one
// process, migrating (taken first, so the two locks are always taken in
// the same order).
func (d *DB) Migrate(ctx context.Context) error {
	migrating.Lock()
	defer migrating.Unlock()
	if d.Dialect == dialect.Postgres {
		conn, err := d.SQL.Conn(ctx)
		if err != nil {
			return fmt.Errorf("database: migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
			return fmt.Errorf("database: migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) //nolint:errcheck
	}
	if err := d.Client.Schema.Create(ctx, migrate.WithDropIndex(true)); err != nil {
		return fmt.Errorf("database: migrate: %w", err)
	}
	// The event sequence counter (not an ent type: one row, no id prefix)
	// and the numbering of events written before it existed.
	if err := eventlog.Migrate(ctx, d.SQL, d.Dialect); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	return nil
}

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return d.SQL.PingContext(ctx)
}

// Close closes the client and the pool.
func (d *DB) Close() error {
	d.checkpoints.stop()
	return errors.Join(d.Client.Close(), d.SQL.Close())
}
