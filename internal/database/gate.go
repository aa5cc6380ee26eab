package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/mattn/go-sqlite3"

	"logistics/internal/apperr"
	"logistics/internal/tracing"
)

// writeGate lets one transaction at a time into a SQLite database from this
// process. SQLite has one writer, and every transaction here takes the
// write lock when it begins (_txlock=immediate); without the gate, the
// writers that find it taken wait in SQLite's busy handler, which sleeps
// 1, 2, 5 … up to 100 ms between tries. Under contention the lock then
// sat free for most of those sleeps while a queue of writers slept, and
// with a busy CPU a writer could wait out the whole busy timeout (a 500 in
// the subscription benchmark). Waiting in the gate's queue (arrival order)
// hands the lock over as soon as it is free, and lets queued transactions
// share a COMMIT (group commit, below). Other processes (the CLI) still
// meet the busy timeout.
//
// The gate belongs to the open database, not to ent: hand-written
// transactions on the same file (the benchmark's floor, DB.BeginWrite) and
// the checkpointer's log restart (checkpoint.go, enter) go through it too.
type writeGate struct {
	timeout time.Duration

	mu     sync.Mutex
	held   bool
	queue  []*gateWaiter // FIFO
	since  time.Time     // when the holder got in
	maxAge time.Duration // how long a group may stay open for joiners (groupAge)
	maxLen int           // how many transactions a group takes (groupSize)

	// group is the transaction the holder may have left open for the next
	// one to join (group commit, below). Only the gate's holder touches it.
	group *txGroup

	// Cumulative figures for /metrics (WriteLock): entries, the groups
	// committed, and the time spent waiting at the gate and holding it, in
	// nanoseconds.
	entries, commits, waitNs, heldNs atomic.Int64
}

// gateWaiter is a writer queued at the gate.
type gateWaiter struct {
	ready   chan struct{} // closed when it is let in
	joins   bool          // an ent transaction, which may join an open group
	start   time.Time
	granted bool // under the gate's mu
}

// newWriteGate returns an open gate; timeout bounds a wait, as the busy
// timeout does.
func newWriteGate(timeout time.Duration) *writeGate {
	return &writeGate{timeout: timeout, maxAge: groupAge, maxLen: groupSize}
}

// gatedDriver is a SQLite driver whose transactions pass the gate.
type gatedDriver struct {
	dialect.Driver
	db   *sql.DB
	gate *writeGate
}

// DB is the database the driver's statements go to.
func (d *gatedDriver) DB() *sql.DB { return d.db }

// errBusy is the answer to a transaction that waited out the timeout.
func errBusy() error {
	return apperr.Unavailable("the database is busy with other writes; retry shortly").WithCode("database_busy").WithHeader("Retry-After", "1")
}

// enter waits for the gate for a writer that must not run inside a group
// (the checkpointer's restart): a group left open is committed before it
// gets in. It returns the function that leaves.
func (g *writeGate) enter(ctx context.Context) (func(), error) {
	if err := g.admit(ctx, false); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(g.leave) }, nil
}

// admit waits until the caller holds the gate, in arrival order. A writer
// whose context ends or whose wait passes the timeout leaves the queue with
// an error — unless it was let in meanwhile: then it holds the gate and
// goes on.
func (g *writeGate) admit(ctx context.Context, joins bool) error {
	start := time.Now()
	g.mu.Lock()
	if !g.held {
		g.held = true
		g.in(start, start)
		g.mu.Unlock()
		return nil
	}
	w := &gateWaiter{ready: make(chan struct{}), joins: joins, start: start}
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	t := time.NewTimer(g.timeout)
	defer t.Stop()
	var err error
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = errBusy()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.granted {
		return nil
	}
	g.queue = slices.DeleteFunc(g.queue, func(q *gateWaiter) bool { return q == w })
	return err
}

// in records a writer getting in (under mu).
func (g *writeGate) in(start, now time.Time) {
	g.since = now
	g.entries.Add(1)
	g.waitNs.Add(int64(now.Sub(start)))
}

// leave lets the next writer in. An open group is handed on to the next
// writer if it is an ent transaction and the group has room and time left;
// otherwise it is committed first, by the leaving writer.
func (g *writeGate) leave() {
	g.mu.Lock()
	if grp := g.group; grp != nil {
		if len(g.queue) > 0 && g.queue[0].joins && grp.takes(g.maxLen, g.maxAge) {
			g.pass()
			g.mu.Unlock()
			return
		}
		g.group = nil
		g.mu.Unlock()
		if grp.end() {
			g.commits.Add(1)
		}
		g.mu.Lock()
	}
	g.pass()
	g.mu.Unlock()
}

// pass ends the holder's turn and lets the first in the queue in (under mu).
func (g *writeGate) pass() {
	now := time.Now()
	g.heldNs.Add(int64(now.Sub(g.since)))
	if len(g.queue) == 0 {
		g.held = false
		return
	}
	w := g.queue[0]
	g.queue[0] = nil
	g.queue = g.queue[1:]
	w.granted = true
	g.in(w.start, now)
	close(w.ready)
}

// WriteLock is what this process's SQLite writers did at the write gate
// since the database was opened: transactions let in (with the
// checkpointer's log restarts and hand-written transactions), and the time
// they waited to get in and held it. Held time over elapsed time is how
// busy the one writer is: near 1, writes are bound by SQLite's lock.
type WriteLock struct {
	Entries int64
	// Commits counts the COMMITs of groups of ent transactions (group
	// commit, below): Entries over Commits is the mean group's size.
	Commits    int64
	Wait, Held time.Duration
}

// WriteLock returns the write gate's figures; ok is false on PostgreSQL.
func (d *DB) WriteLock() (w WriteLock, ok bool) {
	if d.gate == nil {
		return w, false
	}
	g := d.gate
	return WriteLock{Entries: g.entries.Load(), Commits: g.commits.Load(), Wait: time.Duration(g.waitNs.Load()), Held: time.Duration(g.heldNs.Load())}, true
}

// Group commit. Under a queue of writers the one writer spent a quarter of
// each transaction in its COMMIT, writing again the pages the previous
// transaction had just written (the events' and the items' b-trees). So a
// transaction that ends while another ent transaction waits at the gate
// leaves its SQLite transaction open and hands it on: the next one runs
// inside it under a SAVEPOINT, and so on, until no ent transaction waits,
// the group holds groupSize transactions or it has been open for groupAge;
// then the last one commits for all. A transaction's Commit returns only
// after that COMMIT, with its outcome: nothing is answered before it is
// durable, and a COMMIT that fails fails every transaction of the group.
// A transaction that rolls back undoes its own part only (ROLLBACK TO its
// savepoint). The first transaction of a group needs no savepoint: nothing
// is in the group before it.
//
// What a transaction of a group reads includes the earlier ones' writes, as
// it would after their commits; readers on other connections see the group
// at its COMMIT, when its transactions' clients get their answers.
// Hand-written transactions begun with DB.BeginWrite (the benchmark's
// floor) join groups as ent's do.
const (
	groupSize = 32
	groupAge  = 10 * time.Millisecond
)

// txGroup is a SQLite transaction shared by consecutive ent transactions.
type txGroup struct {
	conn    *sql.Conn
	began   time.Time
	members int   // transactions released into it, to commit at its end
	broken  error // SQLite ended the transaction under a member: roll back
	done    chan struct{}
	err     error // the COMMIT's outcome, once done is closed
}

// takes reports whether the group takes another transaction.
func (grp *txGroup) takes(size int, age time.Duration) bool {
	return grp.broken == nil && grp.members > 0 && grp.members < size && time.Since(grp.began) < age
}

// end commits the group (rolls it back if broken or empty), gives its
// connection back and answers its members. It reports whether it ran a
// COMMIT.
func (grp *txGroup) end() (committed bool) {
	bg := context.Background()
	err := grp.broken
	switch {
	case err != nil:
		_, _ = grp.conn.ExecContext(bg, "ROLLBACK") // may have no transaction left
	case grp.members == 0:
		_, err = grp.conn.ExecContext(bg, "ROLLBACK")
	default:
		// A COMMIT that fails (a busy or an I/O error, a deferred
		// constraint: the schema declares none) can leave SQLite's
		// transaction open: it is rolled back, so the connection goes back
		// to the pool with no transaction, as database/sql's Tx would leave it.
		committed = true
		if _, err = grp.conn.ExecContext(bg, "COMMIT"); err != nil {
			_, _ = grp.conn.ExecContext(bg, "ROLLBACK")
		}
	}
	grp.conn.Close()
	grp.err = err
	close(grp.done)
	return committed
}

// Tx begins a transaction once the gate lets it in: in the group left open
// by the previous one (under a savepoint), or with BEGIN IMMEDIATE on a
// connection of its own, not database/sql's Tx. database/sql starts a
// goroutine for every transaction and for every query run in one (to roll
// back or close the rows if a context ends); an allocation runs about
// twenty queries, each goroutine start woke another thread (a futex call,
// costly on this VM), and all of it happened while the one writer held the
// lock. The transaction's statements run without the request's
// cancellation instead (context.WithoutCancel): a SQLite write transaction
// waits on nothing but the disk once it holds the lock, and ending it
// early on a client's disconnect would only roll back work already done.
//
// It begins at its first statement, not when it is opened: a GraphQL
// mutation opens its transaction before gqlgen decodes the arguments and
// the service validates the input, and all of that ran under SQLite's one
// write lock. No statement runs outside the
// transaction either way; one that ends without a statement ends without
// taking the gate.
func (d *gatedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return &lazyTx{db: d.db, gate: d.gate}, nil
}

// lazyTx is a write transaction that begins (beginGrouped) at its first
// statement, with that statement's context for the wait at the gate.
type lazyTx struct {
	db   *sql.DB
	gate *writeGate

	mu   sync.Mutex
	tx   *connTx // nil until the first statement
	done bool    // ended before any statement
}

func (l *lazyTx) begun(ctx context.Context) (*connTx, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tx != nil {
		return l.tx, nil
	}
	if l.done {
		return nil, sql.ErrTxDone
	}
	tx, err := beginGrouped(ctx, l.db, l.gate)
	if err != nil {
		return nil, err
	}
	l.tx = tx
	return tx, nil
}

// Exec runs a statement of the transaction, beginning it if need be.
func (l *lazyTx) Exec(ctx context.Context, query string, args, v any) error {
	tx, err := l.begun(ctx)
	if err != nil {
		return err
	}
	return tx.Exec(ctx, query, args, v)
}

// Query runs a query of the transaction, beginning it if need be.
func (l *lazyTx) Query(ctx context.Context, query string, args, v any) error {
	tx, err := l.begun(ctx)
	if err != nil {
		return err
	}
	return tx.Query(ctx, query, args, v)
}

// ExecContext runs a hand-written statement of the transaction.
func (l *lazyTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tx, err := l.begun(ctx)
	if err != nil {
		return nil, err
	}
	return tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a hand-written query of the transaction.
func (l *lazyTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	tx, err := l.begun(ctx)
	if err != nil {
		return nil, err
	}
	return tx.QueryContext(ctx, query, args...)
}

// Commit commits the transaction, or ends it when it never began.
func (l *lazyTx) Commit() error { return l.end((*connTx).Commit) }

// Rollback rolls the transaction back, or ends it when it never began.
func (l *lazyTx) Rollback() error { return l.end((*connTx).Rollback) }

func (l *lazyTx) end(f func(*connTx) error) error {
	l.mu.Lock()
	tx := l.tx
	if tx == nil {
		if l.done {
			l.mu.Unlock()
			return sql.ErrTxDone
		}
		l.done = true
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	return f(tx)
}

// beginGrouped begins a transaction in the group left open, or a group.
func beginGrouped(ctx context.Context, db *sql.DB, g *writeGate) (*connTx, error) {
	if err := g.admit(ctx, true); err != nil {
		return nil, err
	}
	bg := context.WithoutCancel(ctx)
	if grp := g.group; grp != nil {
		if _, err := grp.conn.ExecContext(bg, "SAVEPOINT member"); err != nil {
			grp.broken = err
			g.leave()
			return nil, err
		}
		return &connTx{Conn: entsql.Conn{ExecQuerier: grp.conn}, grp: grp, gate: g, savepoint: true}, nil
	}
	// Waiting for a pooled connection still ends with the request (the
	// *sql.Conn keeps no context); its statements do not.
	conn, err := db.Conn(ctx)
	if err != nil {
		g.leave()
		return nil, err
	}
	if _, err := conn.ExecContext(bg, "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		g.leave()
		return nil, err
	}
	grp := &txGroup{conn: conn, began: time.Now(), done: make(chan struct{})}
	g.group = grp
	return &connTx{Conn: entsql.Conn{ExecQuerier: conn}, grp: grp, gate: g}, nil
}

// connTx is a write transaction in a group; it leaves the gate when it
// ends, committed or not.
type connTx struct {
	entsql.Conn
	grp       *txGroup
	gate      *writeGate
	savepoint bool // joined an open group: its part is the savepoint "member"
	done      atomic.Bool
}

// Exec runs a statement of the transaction, without ctx's cancellation.
func (t *connTx) Exec(ctx context.Context, query string, args, v any) error {
	return t.Conn.Exec(context.WithoutCancel(ctx), query, args, v)
}

// Query runs a query of the transaction, without ctx's cancellation.
func (t *connTx) Query(ctx context.Context, query string, args, v any) error {
	return t.Conn.Query(context.WithoutCancel(ctx), query, args, v)
}

// ExecContext runs a hand-written statement of the transaction (WriteTx),
// without ctx's cancellation.
func (t *connTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.grp.conn.ExecContext(context.WithoutCancel(ctx), query, args...)
}

// QueryContext runs a hand-written query of the transaction (WriteTx),
// without ctx's cancellation.
func (t *connTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.grp.conn.QueryContext(context.WithoutCancel(ctx), query, args...)
}

// Commit adds the transaction to its group, leaves the gate and returns
// once the group's COMMIT is done, with its outcome.
func (t *connTx) Commit() error {
	if !t.done.CompareAndSwap(false, true) {
		return sql.ErrTxDone
	}
	grp := t.grp
	if t.savepoint {
		if _, err := grp.conn.ExecContext(context.Background(), "RELEASE member"); err != nil {
			t.undo(err)
			t.gate.leave()
			return err
		}
	}
	grp.members++
	t.gate.leave()
	<-grp.done
	return grp.err
}

// Rollback undoes the transaction's part: its savepoint's, or the whole
// SQLite transaction when it began the group (nothing else is in it yet).
func (t *connTx) Rollback() error {
	if !t.done.CompareAndSwap(false, true) {
		return sql.ErrTxDone
	}
	if t.savepoint {
		err := t.undo(nil)
		t.gate.leave()
		return err
	}
	// The group's first transaction: the group ends here, empty.
	t.gate.leave()
	<-t.grp.done
	return t.grp.err
}

// undo rolls a member back to its savepoint. If that fails, or SQLite has
// ended the transaction under it (an I/O or a full-disk error rolls the
// whole transaction back), the group is broken: the transactions already
// in it cannot commit and are told so.
func (t *connTx) undo(cause error) error {
	bg := context.Background()
	conn := t.grp.conn
	_, err := conn.ExecContext(bg, "ROLLBACK TO member")
	if err == nil {
		_, err = conn.ExecContext(bg, "RELEASE member")
	}
	if err == nil && !inTransaction(conn) {
		err = errors.New("database: SQLite ended the write transaction")
	}
	if err != nil {
		if cause != nil {
			err = fmt.Errorf("%w (and %w)", cause, err)
		}
		t.grp.broken = fmt.Errorf("database: a grouped write transaction failed: %w", err)
	}
	return err
}

// inTransaction reports whether SQLite has a transaction open on conn.
func inTransaction(conn *sql.Conn) bool {
	in := true
	_ = conn.Raw(func(dc any) error {
		if c, ok := tracing.Unwrap(dc).(*sqlite3.SQLiteConn); ok {
			in = !c.AutoCommit()
		}
		return nil
	})
	return in
}
