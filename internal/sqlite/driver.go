package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"entgo.io/ent/dialect"
)

// gatedDriver is a SQLite driver whose transactions pass the gate.
type gatedDriver struct {
	dialect.Driver
	db   *sql.DB
	gate *groupGate
}

// DB is the database the driver's statements go to.
func (d *gatedDriver) DB() *sql.DB { return d.db }

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
	gate *groupGate

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
