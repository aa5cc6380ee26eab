package eventlog

import (
	"context"
	"database/sql"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/stdlib"

	"logistics/internal/tracing"
)

// Channel is the PostgreSQL notification channel of committed events; the
// payload is the last sequence number of the committing transaction. Each
// environment has its own database, so the channel needs no environment.
const Channel = "logistics_events"

// Log wakes the waiters of one environment (long polls now; subscriptions
// and the webhook worker later) when events commit: in process at once, and
// from other instances through PostgreSQL LISTEN/NOTIFY. A wake-up is only a
// hint: waiters re-read the log by sequence, and also poll on a timer in
// case a notification is lost (a listener reconnecting, say).
type Log struct {
	env string
	log *slog.Logger

	mu      sync.Mutex
	last    int64         // the highest sequence this instance has heard of
	changed chan struct{} // closed and replaced on every wake-up
	// pub is the last sequence this instance's subscription reader handed
	// out (-1: no reader runs); behind is when last first passed it (zero:
	// caught up). They give the log's lag (Lag).
	pub    int64
	behind time.Time

	listening     chan struct{} // closed once LISTEN first took effect
	listeningOnce sync.Once

	seq atomic.Pointer[sequencer] // running on PostgreSQL (Sequence), else nil

	listeners listeners // called for events inserted with the log's own SQL (OnInsert)
}

// New returns the Log of environment env.
func New(env string, log *slog.Logger) *Log {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Log{env: env, log: log, changed: make(chan struct{}), listening: make(chan struct{}), pub: -1}
}

// Listening returns a channel closed once the PostgreSQL listener has
// subscribed (never closed on SQLite): from then on, other instances'
// commits wake this one's waiters.
func (l *Log) Listening() <-chan struct{} { return l.listening }

// Environment is the name of the Log's environment.
func (l *Log) Environment() string { return l.env }

// Changed returns a channel closed at the next wake-up. Take it BEFORE
// reading the log, then wait on it: a commit between the read and the wait
// still wakes the waiter.
func (l *Log) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// Last returns the highest sequence number this instance has heard of
// (committed here or notified from elsewhere); 0 before any.
func (l *Log) Last() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// committed wakes every waiter; seq is the last number just committed.
func (l *Log) committed(seq int64) {
	l.mu.Lock()
	if seq > l.last {
		l.last = seq
		if l.pub >= 0 && l.last > l.pub && l.behind.IsZero() {
			l.behind = time.Now()
		}
	}
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// Published records that this instance's subscription reader
// (internal/eventstream) has handed every event up to seq to its
// subscribers; seq < 0: the reader stopped (no subscriber is left), so
// nothing waits to be published.
func (l *Log) Published(seq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < 0 {
		l.pub, l.behind = -1, time.Time{}
		return
	}
	l.pub = max(l.pub, seq)
	if l.pub >= l.last {
		l.behind = time.Time{}
	}
}

// Lag is the event log's lag on this instance, for /metrics: the last
// sequence it knows committed (Last), the last its subscription reader
// handed out (-1: no reader runs), and how long events have waited for it:
// zero when it has handed out everything known committed, or runs not;
// otherwise the time since the newest known sequence first passed the one
// handed out (the age of the backlog, its oldest event's wait at most).
func (l *Log) Lag(now time.Time) (last, published int64, lag time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.behind.IsZero() {
		lag = max(now.Sub(l.behind), 0)
	}
	return l.last, l.pub, lag
}

// Wake wakes every waiter as if events up to seq had committed.
func (l *Log) Wake(seq int64) { l.committed(seq) }

// Listen relays PostgreSQL notifications of other instances' commits (and
// this one's: harmless) until ctx ends, reconnecting after errors with a
// short back-off. It holds one connection of db's pool. On SQLite (one
// instance per database file) there is nothing to listen to and it returns
// at once.
func (l *Log) Listen(ctx context.Context, db *sql.DB, dia string) {
	if dia != dialect.Postgres {
		return
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listenOnce(ctx, db)
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("event notifications: listener lost; reconnecting", "environment", l.env, "err", err, "after", backoff)
		// Commits may have happened unnoticed: wake the waiters to re-read.
		l.committed(0)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (l *Log) listenOnce(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := tracing.Unwrap(dc).(*stdlib.Conn).Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+Channel); err != nil {
			return err
		}
		// Anything committed before LISTEN took effect is in the log: wake
		// the waiters once so they re-read it.
		l.committed(0)
		l.listeningOnce.Do(func() { close(l.listening) })
		defer pc.Exec(context.WithoutCancel(ctx), "UNLISTEN "+Channel) //nolint:errcheck
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				return err
			}
			seq, _ := strconv.ParseInt(n.Payload, 10, 64)
			l.committed(seq)
		}
	})
}

type logKey struct{}

// NewContext returns ctx carrying l, for Begin to wake its waiters.
func NewContext(ctx context.Context, l *Log) context.Context {
	return context.WithValue(ctx, logKey{}, l)
}

// FromContext returns the Log in ctx, or nil.
func FromContext(ctx context.Context) *Log {
	l, _ := ctx.Value(logKey{}).(*Log)
	return l
}
