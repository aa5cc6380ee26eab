package database

import (
	"context"
	"sync"
	"time"

	"entgo.io/ent/dialect"

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
}

// newWriteGate returns an open gate; timeout bounds a wait, as the busy
// timeout does.
func newWriteGate(timeout time.Duration) *writeGate {
	return &writeGate{slot: make(chan struct{}, 1), timeout: timeout}
}

// gatedDriver is a SQLite driver whose transactions pass the gate.
type gatedDriver struct {
	dialect.Driver
	gate *writeGate
}

// errBusy is the answer to a transaction that waited out the timeout.
func errBusy() error {
	return apperr.Unavailable("the database is busy with other writes; retry shortly").WithCode("database_busy").WithHeader("Retry-After", "1")
}

func (g *writeGate) enter(ctx context.Context) (func(), error) {
	t := time.NewTimer(g.timeout)
	defer t.Stop()
	select {
	case g.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errBusy()
	}
	var once sync.Once
	return func() { once.Do(func() { <-g.slot }) }, nil
}

// Tx begins a transaction once the gate lets it in.
func (d *gatedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	leave, err := d.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		leave()
		return nil, err
	}
	return &gatedTx{Tx: tx, leave: leave}, nil
}

// gatedTx leaves the gate when it ends, committed or not.
type gatedTx struct {
	dialect.Tx
	leave func()
}

func (t *gatedTx) Commit() error {
	defer t.leave()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.leave()
	return t.Tx.Rollback()
}
