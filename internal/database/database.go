// Package database opens an environment's database — an embedded SQLite file
// by default (internal/sqlite), or PostgreSQL from a postgres:// DSN
// (internal/postgres) — puts the ent client over it, and applies the
// schema. What only one of the two needs lives in that one's package; this
// one picks between them and is the same for both.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/fieldcheck"
	"logistics/internal/migrations"
	"logistics/internal/postgres"
	"logistics/internal/sqlite"
	"logistics/internal/tracing"
)

// DB is an open database with the ent client over it.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB
	Dialect string // dialect.SQLite or dialect.Postgres
	Source  string // the DSN with any password masked, for logs
	// Durability is what a commit that returned survives.
	Durability Durability

	// Replica is the read replica (Options.ReadDSN), nil without one.
	Replica *postgres.Replica

	sqlite *sqlite.DB // SQLite: the write gate and the checkpointer; nil on PostgreSQL
}

// Durability is what a commit that returned survives on a database
// (sqlite.Durability, postgres.Durability).
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
// the write gate (sqlite.DB.BeginWrite), on PostgreSQL with database/sql's
// BeginTx.
func (d *DB) BeginWrite(ctx context.Context) (WriteTx, error) {
	// A failed begin returns a nil interface, not one holding a nil *Tx.
	if d.sqlite != nil {
		return d.sqlite.BeginWrite(ctx)
	}
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return tx, nil
}

// WriteLock returns the SQLite write gate's figures; ok is false on
// PostgreSQL.
func (d *DB) WriteLock() (w sqlite.WriteLock, ok bool) {
	if d.sqlite == nil {
		return w, false
	}
	return d.sqlite.WriteLock(), true
}

// Backup writes a consistent copy of a SQLite file database to target
// (sqlite.DB.Backup).
func (d *DB) Backup(ctx context.Context, target string, overwrite bool) (int64, error) {
	if d.sqlite == nil {
		return 0, errors.New("backup: only a SQLite database can be copied this way")
	}
	return d.sqlite.Backup(ctx, target, overwrite)
}

// traced opens pools whose statements make spans when tracing is on
// (tracing.OpenDB): the same wrapper under ent and the hand-written SQL.
func traced(p *tracing.Provider, system string) func(driverName, dsn string) (*sql.DB, error) {
	return func(driverName, dsn string) (*sql.DB, error) { return tracing.OpenDB(p, driverName, dsn, system) }
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
	// SQLiteMemory bounds, softly, the bytes SQLite keeps in memory across
	// the whole process (sqlite.Config.Memory): 0 sqlite.DefaultMemory,
	// < 0 no bound.
	SQLiteMemory int64
	// Synchronous is SQLite's PRAGMA synchronous on every connection:
	// sqlite.SynchronousFull ("" too) or sqlite.SynchronousNormal. A DSN
	// that sets its own _synchronous (or _sync) keeps it.
	Synchronous string
	// NoCheckpoints leaves SQLite's checkpoints to the other processes
	// on the file: a command that only reads (backup) would otherwise
	// take the write lock from a serving process's writers.
	NoCheckpoints bool
	// Tracing, when on, makes a span per SQL statement of a traced
	// operation (internal/tracing.OpenDB): ent's and the hand-written SQL's.
	Tracing *tracing.Provider
	// ReadDSN names a streaming replica of a PostgreSQL database
	// (postgres:// only) that serves the reads which accept staleness
	// (replica.go); "": none.
	ReadDSN string
	// ReadMaxLag is the lag beyond which the replica is skipped for the
	// primary; ReadCheckInterval how often the lag is measured.
	ReadMaxLag, ReadCheckInterval time.Duration
}

// Open opens dsn: a postgres:// URL (postgres.Open), or a SQLite file path
// (sqlite.Open), and puts the ent client over it.
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	d := &DB{}
	var drv dialect.Driver
	if opt.ReadDSN != "" && (!IsPostgres(dsn) || !IsPostgres(opt.ReadDSN)) {
		return nil, errors.New("database: a read replica needs a PostgreSQL database and a postgres:// replica DSN")
	}
	if IsPostgres(dsn) {
		pg, err := postgres.Open(ctx, dsn, opt.MaxOpenConns, traced(opt.Tracing, "postgresql"))
		if err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
		d.SQL, d.Dialect, d.Source, d.Durability = pg.SQL, dialect.Postgres, pg.Source, Durability(pg.Durability)
		drv = entsql.OpenDB(dialect.Postgres, pg.SQL)
		if opt.ReadDSN != "" {
			if opt.ReadMaxLag <= 0 || opt.ReadCheckInterval <= 0 {
				pg.SQL.Close()
				return nil, errors.New("database: a read replica needs a maximum lag and a check interval above 0")
			}
			r, err := postgres.OpenReplica(opt.ReadDSN, opt.MaxOpenConns, traced(opt.Tracing, "postgresql"), pg.SQL, opt.ReadMaxLag, opt.ReadCheckInterval)
			if err != nil {
				pg.SQL.Close()
				return nil, fmt.Errorf("database: %w", err)
			}
			r.Start(ctx)
			d.Replica = r
			drv = &router{primary: drv, replica: entsql.OpenDB(dialect.Postgres, r.SQL), pdb: pg.SQL, r: r}
		}
	} else {
		lite, err := sqlite.Open(ctx, dsn, sqlite.Config{
			MaxOpenConns: opt.MaxOpenConns, Memory: opt.SQLiteMemory,
			Synchronous: opt.Synchronous, NoCheckpoints: opt.NoCheckpoints,
			OpenDB: traced(opt.Tracing, "sqlite"),
		})
		if err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
		d.SQL, d.Dialect, d.Source, d.Durability = lite.SQL, dialect.SQLite, dsn, Durability(lite.Durability)
		d.sqlite = lite
		drv = lite.Driver()
	}
	if opt.Driver != nil {
		drv = opt.Driver(drv)
	}
	client := ent.NewClient(ent.Driver(drv))
	client.Use(fieldcheck.Hook()) // every invalid field at once, before ent's first-error check
	client.Use(utcTimes)          // times stored in UTC: SQLite compares them as text
	if d.Dialect == dialect.Postgres {
		client.Event.Intercept(numberedEventsOnly)
	}
	d.Client = client
	return d, nil
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

// Migrate applies the pending versioned migrations of the database's
// dialect (internal/migrations): under PostgreSQL's advisory lock or
// SQLite's write lock, so instances starting together take turns; a
// database migrated by a newer binary is refused, and one made by the
// automatic migration of an earlier release is adopted. Nothing is
// serialised within the process any more: ent's automatic migration, which
// completed its package-level tables in place, is not on this path.
func (d *DB) Migrate(ctx context.Context) error {
	if _, err := migrations.Apply(ctx, d.SQL, d.Dialect); err != nil {
		return fmt.Errorf("database: migrate %s: %w", d.Source, err)
	}
	return nil
}

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return d.SQL.PingContext(ctx)
}

// Close closes the client and the pool, after SQLite's checkpointer.
func (d *DB) Close() error {
	var err error
	if d.sqlite != nil {
		err = d.sqlite.Close()
	}
	if d.Replica != nil {
		err = errors.Join(err, d.Replica.Close())
	}
	return errors.Join(err, d.Client.Close(), d.SQL.Close())
}
