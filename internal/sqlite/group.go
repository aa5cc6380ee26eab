package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/mattn/go-sqlite3"

	"logistics/internal/tracing"
)

// Group commit, a layer on the one-writer gate (gate.go). Under a queue of
// writers the one writer spent a quarter of each transaction in its
// COMMIT, writing again the pages the previous transaction had just
// written (the events' and the items' b-trees). So a
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

// groupGate is the write gate with group commit: the gate decides who
// holds the lock, groupGate what the holder's transaction is (its own, or
// the group left open for it) and who commits it.
type groupGate struct {
	gate

	maxAge time.Duration // how long a group may stay open for joiners (groupAge)
	maxLen int           // how many transactions a group takes (groupSize)

	// group is the transaction the holder may have left open for the next
	// one to join. Only the gate's holder touches it.
	group *txGroup

	commits atomic.Int64 // the groups committed, for /metrics (WriteLock)
}

// newGroupGate returns an open gate with group commit; timeout bounds a
// wait, as the busy timeout does.
func newGroupGate(timeout time.Duration) *groupGate {
	return &groupGate{gate: gate{timeout: timeout}, maxAge: groupAge, maxLen: groupSize}
}

// leave lets the next writer in. An open group is handed on to the next
// writer if it is an ent transaction and the group has room and time left;
// otherwise it is committed first, by the leaving writer.
func (g *groupGate) leave() {
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

// beginGrouped begins a transaction in the group left open, or a group.
func beginGrouped(ctx context.Context, db *sql.DB, g *groupGate) (*connTx, error) {
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
	gate      *groupGate
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
