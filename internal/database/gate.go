package database

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/internal/apperr"
)

// writeGate lets one transaction at a time into a SQLite database from this
// process. SQLite has one writer, and every transaction here takes the
// write lock when it begins (_txlock=immediate); without the gate, the
// writers that find it taken wait in SQLite's busy handler, which sleeps
// 1, 2, 5 … up to 100 ms between tries. Under contention the lock then
// sat free for most of those sleeps while a queue of writers slept, and
// with a busy CPU a writer could wait out the whole busy timeout (a 500 in
// the subscription benchmark). Waiting on a channel hands the lock over as
// soon as it is free. Other processes (the CLI) still meet the busy
// timeout.
//
// The gate belongs to the open database, not to ent: hand-written
// transactions on the same file (the benchmark's floor) and the
// checkpointer's log restart (checkpoint.go) go through it too (DB.EnterWrite).
type writeGate struct {
	slot    chan struct{}
	timeout time.Duration
	// Cumulative figures for /metrics (WriteLock): entries, and the time
	// spent waiting at the gate and holding it, in nanoseconds.
	entries, waitNs, heldNs atomic.Int64
}

// newWriteGate returns an open gate; timeout bounds a wait, as the busy
// timeout does.
func newWriteGate(timeout time.Duration) *writeGate {
	return &writeGate{slot: make(chan struct{}, 1), timeout: timeout}
}

// gatedDriver is a SQLite driver whose transactions pass the gate.
type gatedDriver struct {
	dialect.Driver
	db   *sql.DB
	gate *writeGate
}

// errBusy is the answer to a transaction that waited out the timeout.
func errBusy() error {
	return apperr.Unavailable("the database is busy with other writes; retry shortly").WithCode("database_busy").WithHeader("Retry-After", "1")
}

func (g *writeGate) enter(ctx context.Context) (func(), error) {
	start := time.Now()
	select {
	case g.slot <- struct{}{}: // free: no timer
	default:
		t := time.NewTimer(g.timeout)
		defer t.Stop()
		select {
		case g.slot <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			return nil, errBusy()
		}
	}
	in := time.Now()
	g.entries.Add(1)
	g.waitNs.Add(int64(in.Sub(start)))
	var once sync.Once
	return func() {
		once.Do(func() {
			g.heldNs.Add(int64(time.Since(in)))
			<-g.slot
		})
	}, nil
}

// WriteLock is what this process's SQLite writers did at the write gate
// since the database was opened: transactions let in (with the
// checkpointer's log restarts and hand-written transactions), and the time
// they waited to get in and held it. Held time over elapsed time is how
// busy the one writer is: near 1, writes are bound by SQLite's lock.
type WriteLock struct {
	Entries    int64
	Wait, Held time.Duration
}

// WriteLock returns the write gate's figures; ok is false on PostgreSQL.
func (d *DB) WriteLock() (w WriteLock, ok bool) {
	if d.gate == nil {
		return w, false
	}
	g := d.gate
	return WriteLock{Entries: g.entries.Load(), Wait: time.Duration(g.waitNs.Load()), Held: time.Duration(g.heldNs.Load())}, true
}

// Tx begins a transaction once the gate lets it in: BEGIN IMMEDIATE on a
// connection of its own, not database/sql's Tx. database/sql starts a
// goroutine for every transaction and for every query run in one (to roll
// back or close the rows if a context ends); an allocation runs about
// twenty queries, each goroutine start woke another thread (a futex call,
// costly on this VM), and all of it happened while the one writer held the
// lock. The transaction's statements run without the request's
// cancellation instead (context.WithoutCancel): a SQLite write transaction
// waits on nothing but the disk once it holds the lock, and ending it
// early on a client's disconnect would only roll back work already done.
func (d *gatedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	leave, err := d.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	// Waiting for a pooled connection still ends with the request (the
	// *sql.Conn keeps no context); its statements do not.
	conn, err := d.db.Conn(ctx)
	if err != nil {
		leave()
		return nil, err
	}
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		leave()
		return nil, err
	}
	return &connTx{Conn: entsql.Conn{ExecQuerier: conn}, conn: conn, leave: leave}, nil
}

// connTx is a write transaction on one connection; it leaves the gate and
// gives the connection back when it ends, committed or not.
type connTx struct {
	entsql.Conn
	conn  *sql.Conn
	leave func()
	done  atomic.Bool
}

// Exec runs a statement of the transaction, without ctx's cancellation.
func (t *connTx) Exec(ctx context.Context, query string, args, v any) error {
	return t.Conn.Exec(context.WithoutCancel(ctx), query, args, v)
}

// Query runs a query of the transaction, without ctx's cancellation.
func (t *connTx) Query(ctx context.Context, query string, args, v any) error {
	return t.Conn.Query(context.WithoutCancel(ctx), query, args, v)
}

// Commit commits. A COMMIT that fails (a deferred constraint, a busy or an
// I/O error) can leave SQLite's transaction open: it is rolled back, so the
// connection goes back to the pool with no transaction, as database/sql's
// Tx would leave it.
func (t *connTx) Commit() error {
	if !t.done.CompareAndSwap(false, true) {
		return sql.ErrTxDone
	}
	_, err := t.conn.ExecContext(context.Background(), "COMMIT")
	if err != nil {
		_, _ = t.conn.ExecContext(context.Background(), "ROLLBACK")
	}
	t.end()
	return err
}

// Rollback rolls back.
func (t *connTx) Rollback() error {
	if !t.done.CompareAndSwap(false, true) {
		return sql.ErrTxDone
	}
	_, err := t.conn.ExecContext(context.Background(), "ROLLBACK")
	t.end()
	return err
}

func (t *connTx) end() {
	t.conn.Close()
	t.leave()
}
