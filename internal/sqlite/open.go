package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// Config tunes how a SQLite database is opened.
type Config struct {
	// MaxOpenConns caps the pool (0: 8).
	MaxOpenConns int
	// Memory bounds, softly, the bytes SQLite keeps in memory — page
	// caches above all — across the whole process, every database
	// together: 0 DefaultMemory, < 0 no bound. The bound is SQLite's, one
	// per process; the last database opened sets it (memory.go).
	Memory int64
	// Synchronous is PRAGMA synchronous on every connection:
	// SynchronousFull ("" too) or SynchronousNormal. A DSN that sets its
	// own _synchronous (or _sync) keeps it (durability.go).
	Synchronous string
	// NoCheckpoints leaves the log's checkpoints to the other processes
	// on the file: a command that only reads (backup) would otherwise
	// take the write lock from a serving process's writers.
	NoCheckpoints bool
	// OpenDB opens the pool (nil: sql.Open); the tracing wrapper comes in
	// here (internal/database).
	OpenDB func(driverName, dsn string) (*sql.DB, error)
}

// DB is an open SQLite database: the pool, the write gate its writers pass
// (gate.go, group.go) and the log's checkpointer (checkpoint.go).
type DB struct {
	SQL *sql.DB
	// Durability is what a commit that returned survives (durability.go).
	Durability Durability

	gate        *groupGate    // one write transaction at a time from this process
	checkpoints *checkpointer // file databases: the log's checkpoints
}

// Open opens the SQLite file of dsn (created with its directory when
// missing) in WAL mode with foreign keys on, a busy timeout, write
// transactions that take the lock up front, a case-sensitive LIKE so that
// substring filters match PostgreSQL, and synchronous=FULL unless cfg or
// the DSN says otherwise (durability.go). It checks that every connection
// gets the foreign keys and the synchronous mode, and starts the
// checkpointer of a file database.
func Open(ctx context.Context, dsn string, cfg Config) (*DB, error) {
	if path := Path(dsn); path != "" && path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
	}
	limitMemory(cfg.Memory)
	mode, level, durability, err := chooseSynchronous(dsn, cfg.Synchronous)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dsn, err)
	}
	open := cfg.OpenDB
	if open == nil {
		open = sql.Open
	}
	db, err := open(driverName, withDefaults(dsn, mode))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dsn, err)
	}
	maxOpen := cfg.MaxOpenConns
	if maxOpen == 0 {
		maxOpen = 8
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", dsn, err)
	}
	// The write path leaves references to the foreign keys (see
	// internal/service/refs.go): a DSN that turns them off (_fk=0,
	// _foreign_keys=0) would let a create keep an id that does not exist.
	var fk int
	if err := db.QueryRowContext(pingCtx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		db.Close()
		return nil, fmt.Errorf("%s: foreign keys must be on (foreign_keys = %d, %v): remove _fk=0 or _foreign_keys=0 from the DSN", dsn, fk, err)
	}
	if err := checkSynchronous(pingCtx, db, level, durability.Mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", dsn, err)
	}
	d := &DB{SQL: db, Durability: durability, gate: newGroupGate(busyTimeout)}
	if !inMemory(dsn) && !cfg.NoCheckpoints {
		d.checkpoints = startCheckpointer(db, &d.gate.gate, dsn)
	}
	return d, nil
}

// Driver returns an ent driver over the database whose transactions pass
// the write gate (driver.go).
func (d *DB) Driver() dialect.Driver {
	return &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, d.SQL), db: d.SQL, gate: d.gate}
}

// WriteTx is a write transaction for hand-written SQL.
type WriteTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	Commit() error
	Rollback() error
}

// BeginWrite begins a write transaction for hand-written SQL (the
// benchmark's floor) the way ent's transactions begin: through the write
// gate, in the group left open if there is one (group.go), with BEGIN
// IMMEDIATE otherwise.
func (d *DB) BeginWrite(ctx context.Context) (WriteTx, error) {
	// A failed begin returns a nil interface, not one holding a nil *connTx.
	tx, err := beginGrouped(ctx, d.SQL, d.gate)
	if err != nil {
		return nil, err
	}
	return tx, nil
}

// WriteLock returns the write gate's figures since the database was opened.
func (d *DB) WriteLock() WriteLock {
	g := d.gate
	return WriteLock{Entries: g.entries.Load(), Commits: g.commits.Load(), Wait: time.Duration(g.waitNs.Load()), Held: time.Duration(g.heldNs.Load())}
}

// Close stops the checkpoints, waiting for the one under way, and closes
// the pool. Closing the last connection checkpoints the rest of the log
// and removes it.
func (d *DB) Close() error {
	d.checkpoints.stop()
	return d.SQL.Close()
}

// Path is the file of a SQLite DSN ("file:" and parameters removed).
func Path(dsn string) string {
	path := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return path
}

// inMemory reports whether a DSN names an in-memory database (no log to
// checkpoint).
func inMemory(dsn string) bool {
	return strings.Contains(dsn, ":memory:") || strings.Contains(dsn, "mode=memory")
}

// busyTimeout bounds a writer's wait for the lock: in SQLite's busy
// handler (other processes) and at this process's write gate.
const busyTimeout = 10 * time.Second

// withDefaults adds the options we rely on to dsn unless the caller set
// them; synchronous is the PRAGMA synchronous to ask for ("" when the DSN
// sets its own).
func withDefaults(dsn, synchronous string) string {
	if !strings.HasPrefix(dsn, "file:") {
		dsn = "file:" + dsn
	}
	defaults := [][2]string{
		{"_fk", "1"},
		{"_journal_mode", "WAL"},
		{"_busy_timeout", strconv.Itoa(int(busyTimeout / time.Millisecond))},
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
