package metrics

import (
	"context"
	stdsql "database/sql"
	"errors"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// statementBuckets are the upper bounds (seconds) of the statement-duration
// histogram: statements are mostly well under a millisecond on SQLite.
var statementBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// Statement kinds (the kind label).
const (
	kindOther = iota
	kindSelect
	kindInsert
	kindUpdate
	kindDelete
	kindCommit
	nKinds
)

var kinds = [nKinds]string{"other", "select", "insert", "update", "delete", "commit"}

// kindOf classifies a statement by its first keyword. A WITH … statement
// is "other": its main statement may be any of them.
func kindOf(q string) int {
	i := 0
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r' || q[i] == '(') {
		i++
	}
	if len(q)-i < 6 {
		return kindOther
	}
	w := q[i : i+6]
	switch {
	case equalFold6(w, "select"):
		return kindSelect
	case equalFold6(w, "insert"):
		return kindInsert
	case equalFold6(w, "update"):
		return kindUpdate
	case equalFold6(w, "delete"):
		return kindDelete
	}
	return kindOther
}

// equalFold6 compares six bytes, ASCII case-insensitively, without the
// allocation-free but slower generality of strings.EqualFold.
func equalFold6(a, lower string) bool {
	for i := range 6 {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Statements times the SQL statements of one environment's ent driver.
type Statements struct {
	obs [nKinds]prometheus.Observer
	// rows: time a query until its rows close (TimeRows). Off, a query is
	// timed until it returns, which on SQLite is before its first row.
	rows atomic.Bool
}

// TimeRows times every query from now on until its rows are closed, which
// wraps the rows' scanner: ent's schema migration (and any code that
// drives Atlas through the ent driver) asserts that it is database/sql's
// own *sql.Rows. The app turns it on when it builds its HTTP interface,
// after the migration; commands that serve nothing never do.
func (s *Statements) TimeRows() { s.rows.Store(true) }

// Statements returns the statement timer of environment env. Its series
// exist from the start, at zero.
func (r *Registry) Statements(env string) *Statements {
	s := &Statements{}
	for k := range s.obs {
		s.obs[k] = r.statements.WithLabelValues(env, kinds[k])
	}
	return s
}

// DBStats exposes db's pool statistics (database/sql's DBStats: open,
// in-use and idle connections, waits and their time, connections closed)
// as client_golang's go_sql_… series, labelled with the environment.
func (r *Registry) DBStats(env string, db *stdsql.DB) {
	prometheus.WrapRegistererWith(prometheus.Labels{"environment": env}, r.reg).
		MustRegister(collectors.NewDBStatsCollector(db, env))
}

// Wrap returns d with every statement timed: Exec until it returns, Query
// until its rows are closed (SQLite steps through the rows only as they are
// read; see TimeRows), and a transaction's Commit. A driver with a DB method (ent's own,
// the SQLite write gate's), or a DBFor (the read-replica router's), keeps it, so that code which uses the pool for
// batches of its own (orderread's PostgreSQL pipeline) still can; those
// batches are not timed.
func (s *Statements) Wrap(d dialect.Driver) dialect.Driver {
	t := timedDriver{Driver: d, s: s}
	if db, ok := d.(interface {
		DBFor(context.Context) *stdsql.DB
	}); ok {
		return &timedDriverDBFor{timedDriver: t, db: db}
	}
	if db, ok := d.(interface{ DB() *stdsql.DB }); ok {
		return &timedDriverDB{timedDriver: t, db: db}
	}
	return &t
}

func (s *Statements) since(kind int, start time.Time) {
	s.obs[kind].Observe(time.Since(start).Seconds())
}

// timedRows observes a query when its rows are closed.
type timedRows struct {
	entsql.ColumnScanner
	s     *Statements
	kind  int
	start time.Time
	done  bool
}

func (r *timedRows) Close() error {
	err := r.ColumnScanner.Close()
	if !r.done {
		r.done = true
		r.s.since(r.kind, r.start)
	}
	return err
}

// query runs a query through q and times it until its rows close.
func (s *Statements) query(ctx context.Context, q interface {
	Query(context.Context, string, any, any) error
}, query string, args, v any) error {
	start := time.Now()
	kind := kindOf(query)
	err := q.Query(ctx, query, args, v)
	if rows, ok := v.(*entsql.Rows); ok && err == nil && rows.ColumnScanner != nil && s.rows.Load() {
		rows.ColumnScanner = &timedRows{ColumnScanner: rows.ColumnScanner, s: s, kind: kind, start: start}
		return nil
	}
	s.since(kind, start)
	return err
}

type timedDriver struct {
	dialect.Driver
	s *Statements
}

func (d *timedDriver) Exec(ctx context.Context, query string, args, v any) error {
	start := time.Now()
	err := d.Driver.Exec(ctx, query, args, v)
	d.s.since(kindOf(query), start)
	return err
}

func (d *timedDriver) Query(ctx context.Context, query string, args, v any) error {
	return d.s.query(ctx, d.Driver, query, args, v)
}

func (d *timedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &timedTx{Tx: tx, s: d.s}, nil
}

type timedDriverDB struct {
	timedDriver
	db interface{ DB() *stdsql.DB }
}

// DB is the wrapped driver's database.
func (d *timedDriverDB) DB() *stdsql.DB { return d.db.DB() }

// timedDriverDBFor keeps the DBFor of a driver that picks its pool by the
// read's context (internal/database's read-replica router).
type timedDriverDBFor struct {
	timedDriver
	db interface {
		DBFor(context.Context) *stdsql.DB
	}
}

// DBFor is the wrapped driver's pool for a read with ctx.
func (d *timedDriverDBFor) DBFor(ctx context.Context) *stdsql.DB { return d.db.DBFor(ctx) }

type timedTx struct {
	dialect.Tx
	s *Statements
}

func (t *timedTx) Exec(ctx context.Context, query string, args, v any) error {
	start := time.Now()
	err := t.Tx.Exec(ctx, query, args, v)
	t.s.since(kindOf(query), start)
	return err
}

func (t *timedTx) Query(ctx context.Context, query string, args, v any) error {
	return t.s.query(ctx, t.Tx, query, args, v)
}

// ExecContext and QueryContext pass database/sql's own calls through
// (ent's Tx.ExecContext asserts them on the driver's transaction: the
// idempotency store sets PostgreSQL's lock_timeout with one), timed as Exec
// is; a transaction without them answers as ent does without the wrapper.
func (t *timedTx) ExecContext(ctx context.Context, query string, args ...any) (stdsql.Result, error) {
	ex, ok := t.Tx.(interface {
		ExecContext(context.Context, string, ...any) (stdsql.Result, error)
	})
	if !ok {
		return nil, errors.New("Tx.ExecContext is not supported")
	}
	start := time.Now()
	r, err := ex.ExecContext(ctx, query, args...)
	t.s.since(kindOf(query), start)
	return r, err
}

func (t *timedTx) QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error) {
	q, ok := t.Tx.(interface {
		QueryContext(context.Context, string, ...any) (*stdsql.Rows, error)
	})
	if !ok {
		return nil, errors.New("Tx.QueryContext is not supported")
	}
	start := time.Now()
	r, err := q.QueryContext(ctx, query, args...)
	t.s.since(kindOf(query), start)
	return r, err
}

// ExecContext and QueryContext of the driver, likewise (ent's
// Client.ExecContext).
func (d *timedDriver) ExecContext(ctx context.Context, query string, args ...any) (stdsql.Result, error) {
	ex, ok := d.Driver.(interface {
		ExecContext(context.Context, string, ...any) (stdsql.Result, error)
	})
	if !ok {
		return nil, errors.New("Driver.ExecContext is not supported")
	}
	start := time.Now()
	r, err := ex.ExecContext(ctx, query, args...)
	d.s.since(kindOf(query), start)
	return r, err
}

func (d *timedDriver) QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error) {
	q, ok := d.Driver.(interface {
		QueryContext(context.Context, string, ...any) (*stdsql.Rows, error)
	})
	if !ok {
		return nil, errors.New("Driver.QueryContext is not supported")
	}
	start := time.Now()
	r, err := q.QueryContext(ctx, query, args...)
	d.s.since(kindOf(query), start)
	return r, err
}

func (t *timedTx) Commit() error {
	start := time.Now()
	err := t.Tx.Commit()
	t.s.since(kindCommit, start)
	return err
}
