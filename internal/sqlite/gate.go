package sqlite

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"logistics/internal/apperr"
)

// gate lets one transaction at a time into a SQLite database from this
// process. SQLite has one writer, and every transaction here takes the
// write lock when it begins (_txlock=immediate); without the gate, the
// writers that find it taken wait in SQLite's busy handler, which sleeps
// 1, 2, 5 … up to 100 ms between tries. Under contention the lock then
// sat free for most of those sleeps while a queue of writers slept, and
// with a busy CPU a writer could wait out the whole busy timeout (a 500 in
// the subscription benchmark). Waiting in the gate's queue (arrival order)
// hands the lock over as soon as it is free, and lets queued transactions
// share a COMMIT (group commit, group.go). Other processes (the CLI) still
// meet the busy timeout.
//
// The gate belongs to the open database, not to ent: hand-written
// transactions on the same file (the benchmark's floor, DB.BeginWrite) and
// the checkpointer's log restart (checkpoint.go, enter) go through it too.
//
// This file is the plain one-writer pool, readable alone: a writer is let
// in (admit), runs its transaction — BEGIN IMMEDIATE … COMMIT on a pooled
// connection — and leaves, and the first in the queue gets in (pass).
// timeout bounds a wait, as the busy timeout does. Group commit (group.go)
// is a layer on top: groupGate embeds the gate and decides, when a writer
// leaves, whether the next one joins its transaction, still open.
type gate struct {
	timeout time.Duration

	mu    sync.Mutex
	held  bool
	queue []*gateWaiter // FIFO
	since time.Time     // when the holder got in

	// Cumulative figures for /metrics (WriteLock): entries, and the time
	// spent waiting at the gate and holding it, in nanoseconds.
	entries, waitNs, heldNs atomic.Int64
}

// gateWaiter is a writer queued at the gate.
type gateWaiter struct {
	ready   chan struct{} // closed when it is let in
	joins   bool          // may join an open group (group.go)
	start   time.Time
	granted bool // under the gate's mu
}

// errBusy is the answer to a transaction that waited out the timeout.
func errBusy() error {
	return apperr.Unavailable("the database is busy with other writes; retry shortly").WithCode("database_busy").WithHeader("Retry-After", "1")
}

// enter waits for the gate for a writer that must not run inside a group
// (the checkpointer's restart), and returns the function that leaves. It
// never finds a group open: a leaving writer commits its group before it
// lets in one that does not join (groupGate.leave), so the plain leave is
// the right one.
func (g *gate) enter(ctx context.Context) (func(), error) {
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
func (g *gate) admit(ctx context.Context, joins bool) error {
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
func (g *gate) in(start, now time.Time) {
	g.since = now
	g.entries.Add(1)
	g.waitNs.Add(int64(now.Sub(start)))
}

// leave lets the next writer in.
func (g *gate) leave() {
	g.mu.Lock()
	g.pass()
	g.mu.Unlock()
}

// pass ends the holder's turn and lets the first in the queue in (under mu).
func (g *gate) pass() {
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
	// Commits counts the COMMITs of groups of transactions (group.go):
	// Entries over Commits is the mean group's size.
	Commits    int64
	Wait, Held time.Duration
}
