package eventlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"logistics/ent/event"
)

// Why PostgreSQL numbers events after the commit, not during it:
// numbering at commit holds the counter row's lock through the commit's WAL
// flush, so every event-writing transaction of an environment — of every
// instance — committed one at a time: about 400 writes/s on the reference
// machine, where the same writes without the counter reach 2,000+ through
// PostgreSQL's group commit.
//
// So on PostgreSQL a transaction inserts its events unnumbered, each with a
// pending_order taken from a database sequence (one clock for all
// instances: an event written after another committed has a larger one), and
// commits without any shared lock. The sequencer then numbers committed
// events in one short transaction of its own: it takes the counter row's
// lock (sequencers of all instances take turns), numbers every unnumbered
// committed event in pending_order, moves the counter and notifies. A
// reader still never skips an event: numbers only ever appear in a
// committed numbering transaction, and the next one starts after it. One
// numbering transaction serves every write that committed before it
// started, so its cost is shared, as a group commit's.
//
// The writer waits for the numbering run that starts after its commit
// before answering: a client that wrote sees its events in the log at once.
// Should the instance die between the commit and the numbering, its events
// are numbered by the next run of any instance: each one checks for
// unnumbered events every PollInterval and runs one pass when it starts.

// pendingSequence is the PostgreSQL sequence of pending_order.
const pendingSequence = "events_pending_order_seq"

// numberBatch is how many events one numbering statement numbers at most.
const numberBatch = 5000

// sequencer numbers the committed events of one PostgreSQL database.
type sequencer struct {
	db   *sql.DB
	kick chan struct{} // a writer committed: run (capacity 1)
	stop chan struct{} // closed when the sequencer stops

	mu      sync.Mutex
	started uint64        // numbering runs started
	done    uint64        // numbering runs finished
	ran     chan struct{} // closed and replaced when a run finishes
}

// SequencePollInterval is how often a sequencer looks for events that no
// sequencer numbered (their writer died between commit and numbering).
var SequencePollInterval = time.Second

// Sequence runs the environment's sequencer on PostgreSQL until ctx ends
// (on SQLite, where events are numbered at commit, it returns at once).
// While it runs, this instance's transactions leave their events for it to
// number (see above); the app starts it beside Listen.
func (l *Log) Sequence(ctx context.Context, db *sql.DB, dia string) {
	if dia != dialect.Postgres {
		return
	}
	s := &sequencer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), ran: make(chan struct{})}
	l.seq.Store(s)
	defer func() {
		l.seq.CompareAndSwap(s, nil)
		close(s.stop)
	}()
	tick := time.NewTicker(SequencePollInterval)
	defer tick.Stop()
	s.run(ctx, l) // events an earlier process left unnumbered
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
			s.run(ctx, l)
		case <-tick.C:
			if s.waiting(ctx) {
				s.run(ctx, l)
			}
		}
	}
}

// Numbered waits, when the sequencer runs, for the numbering of every event
// committed before the call (see await); without one it returns at once.
// Writers through Begin wait by themselves; it is for code that writes events
// with its own SQL (the benchmark's floor).
func (l *Log) Numbered(ctx context.Context) {
	if s := l.sequencer(); s != nil {
		s.await(ctx)
	}
}

// Sequencing tells whether this instance's sequencer runs: events written
// now are to be left unnumbered, with a pending_order (PendingOrderSQL).
func (l *Log) Sequencing() bool { return l.sequencer() != nil }

// PendingOrderSQL is the SQL expression of an event's pending_order, for
// code that inserts events with its own SQL while Sequencing.
const PendingOrderSQL = "nextval('" + pendingSequence + "')"

// sequencer returns the running sequencer, or nil.
func (l *Log) sequencer() *sequencer {
	if l == nil {
		return nil
	}
	return l.seq.Load()
}

// waiting tells whether a committed event waits for the sequencer (the
// partial index on pending_order answers it). Events without a
// pending_order are the migration's (written before sequences existed).
func (s *sequencer) waiting(ctx context.Context) bool {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM `+event.Table+` WHERE `+event.FieldSequence+` IS NULL AND `+event.FieldPendingOrder+` IS NOT NULL LIMIT 1`).Scan(&one)
	return err == nil
}

// beforeRun, when set, is called before every numbering run (the crash
// test's child process blocks there: export_test.go).
var beforeRun atomic.Pointer[func()]

// run is one numbering run: batches until no committed event is left
// unnumbered. Errors are logged; the next kick or poll tries again.
func (s *sequencer) run(ctx context.Context, l *Log) {
	if f := beforeRun.Load(); f != nil {
		(*f)()
	}
	s.mu.Lock()
	s.started++
	me := s.started
	s.mu.Unlock()
	var last int64
	for ctx.Err() == nil {
		n, k, err := numberCommitted(ctx, s.db)
		if err != nil {
			if ctx.Err() == nil {
				l.log.Warn("event sequencer: numbering failed; retrying at the next commit or poll", "environment", l.env, "err", err)
			}
			break
		}
		if k > 0 {
			last = n
		}
		if k < numberBatch {
			break
		}
	}
	if last > 0 {
		l.committed(last)
	}
	s.mu.Lock()
	s.done = me
	close(s.ran)
	s.ran = make(chan struct{})
	s.mu.Unlock()
}

// await returns once a numbering run that started after the call has
// finished — every event committed before the call is then numbered, unless
// that run failed — or when ctx ends, the sequencer stops, or after a
// bound (the write has committed either way; its events are numbered by a
// later run).
func (s *sequencer) await(ctx context.Context) {
	s.mu.Lock()
	target := s.started + 1
	ran := s.ran
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // a run is already asked for; it starts after this call
	}
	bound := time.NewTimer(10 * time.Second)
	defer bound.Stop()
	for {
		select {
		case <-ran:
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-bound.C:
			return
		}
		s.mu.Lock()
		done := s.done
		ran = s.ran
		s.mu.Unlock()
		if done >= target {
			return
		}
	}
}

// numberCommitted numbers up to numberBatch committed, unnumbered events in
// pending_order and returns the counter's new value and how many it
// numbered, in one transaction of its own. The counter row's lock is taken
// first: the statement after it reads with a snapshot taken once the lock
// is held, so it sees everything an earlier numbering committed.
func numberCommitted(ctx context.Context, db *sql.DB) (int64, int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback() //nolint:errcheck
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT last_value FROM `+counterTable+` WHERE id = 1 FOR UPDATE`).Scan(&last); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, 0, errors.New("sequence: no counter row (database not migrated)")
		}
		return 0, 0, err
	}
	var k int
	err = tx.QueryRowContext(ctx, `WITH todo AS (
	SELECT id, row_number() OVER (ORDER BY `+event.FieldPendingOrder+`, id) AS n FROM `+event.Table+`
	WHERE `+event.FieldSequence+` IS NULL AND `+event.FieldPendingOrder+` IS NOT NULL ORDER BY `+event.FieldPendingOrder+`, id LIMIT $2
), numbered AS (
	UPDATE `+event.Table+` e SET `+event.FieldSequence+` = $1 + todo.n FROM todo WHERE e.id = todo.id RETURNING 1
)
SELECT count(*) FROM numbered`, last, numberBatch).Scan(&k)
	if err != nil || k == 0 {
		return last, 0, err
	}
	last += int64(k)
	// The counter moves and the NOTIFY is queued in one statement.
	if _, err := tx.ExecContext(ctx, `UPDATE `+counterTable+` SET last_value = $1 WHERE id = 1 RETURNING pg_notify($2, $3)::text`,
		last, Channel, strconv.FormatInt(last, 10)); err != nil {
		return 0, 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("sequence: %w", err)
	}
	return last, k, nil
}
