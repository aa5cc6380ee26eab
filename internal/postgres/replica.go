package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// LSN is a position in PostgreSQL's write-ahead log (pg_lsn), as a number.
type LSN uint64

// ParseLSN reads PostgreSQL's text form of a WAL position, "16/B374D848".
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("%q is not a WAL position such as 0/16B3748", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%q is not a WAL position such as 0/16B3748", s)
	}
	return LSN(h<<32 | l), nil
}

// String is PostgreSQL's text form of the position.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

// CurrentLSN is the primary's current WAL write position. Read after a
// commit returned, it is at or past the commit's record: a standby that has
// replayed it shows the transaction.
func CurrentLSN(ctx context.Context, primary *sql.DB) (LSN, error) {
	var s string
	if err := primary.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&s); err != nil {
		return 0, err
	}
	return ParseLSN(s)
}

// ReplicaState names what the last check found of a replica.
type ReplicaState string

// The states of a replica. Only ReplicaOK serves reads.
const (
	ReplicaStarting    ReplicaState = "starting"      // not checked yet
	ReplicaOK          ReplicaState = "ok"            // in recovery and within the lag bound
	ReplicaLagging     ReplicaState = "lagging"       // behind the primary by more than the bound
	ReplicaUnreachable ReplicaState = "unreachable"   // does not answer, or failed a read
	ReplicaNotStandby  ReplicaState = "not_a_standby" // answers but is not in recovery (promoted, or a primary)
)

// ReplicaStatus is what the last check found.
type ReplicaStatus struct {
	State ReplicaState
	// Lag is how far the replica's data is behind the primary's: 0 when
	// it has replayed every WAL position the primary had written when
	// checked, else the time since the last transaction it replayed
	// committed on the primary (an upper bound of its staleness).
	Lag       time.Duration
	Replayed  LSN       // pg_last_wal_replay_lsn() when checked
	CheckedAt time.Time // zero before the first check
	Err       string    // why it is unreachable, lagging or not a standby
}

// Replica is a streaming replica of a primary that serves reads which
// accept staleness. A goroutine checks its lag every interval (Run); the
// request path only reads the last result (Usable).
type Replica struct {
	SQL    *sql.DB
	Source string // the DSN with any password masked, for logs
	MaxLag time.Duration

	primary  *sql.DB
	interval time.Duration
	status   atomic.Pointer[ReplicaStatus]
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// OpenReplica opens a pool of maxOpen connections (0: 20) to the replica at
// dsn, opened by open (nil: sql.Open), whose lag behind primary is checked
// every interval once Start runs. An unreachable replica is no error: it
// serves nothing until a check finds it within maxLag.
func OpenReplica(dsn string, maxOpen int, open func(driverName, dsn string) (*sql.DB, error), primary *sql.DB, maxLag, interval time.Duration) (*Replica, error) {
	db, source, err := openPool(dsn, maxOpen, open)
	if err != nil {
		return nil, fmt.Errorf("open replica %s: %w", source, err)
	}
	r := &Replica{SQL: db, Source: source, MaxLag: maxLag, primary: primary, interval: interval}
	r.status.Store(&ReplicaStatus{State: ReplicaStarting})
	return r, nil
}

// Start checks the replica once, then every interval until Close.
func (r *Replica) Start(ctx context.Context) {
	ctx, r.stop = context.WithCancel(context.WithoutCancel(ctx))
	r.Check(ctx)
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(r.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				r.Check(ctx)
			}
		}
	}()
}

// Close stops the checks and closes the pool.
func (r *Replica) Close() error {
	if r.stop != nil {
		r.stop()
		r.done.Wait()
	}
	return r.SQL.Close()
}

// Status is what the last check found.
func (r *Replica) Status() ReplicaStatus { return *r.status.Load() }

// Usable reports whether the replica may serve a read that needs at least
// the WAL position after (0: any): the last check found it within the lag
// bound, with after replayed. The check is at most one interval old and
// replay only moves forward, so a position it had replayed then is
// replayed now.
func (r *Replica) Usable(after LSN) bool {
	s := r.status.Load()
	return s.State == ReplicaOK && s.Replayed >= after
}

// Failed takes the replica out of service after a read on it failed in a
// way that says it is gone (a connection error, a shutdown), until the
// next check finds it back.
func (r *Replica) Failed(err error) {
	if !Unavailable(err) {
		return
	}
	s := r.Status()
	if s.State != ReplicaOK {
		return
	}
	s.State, s.Err = ReplicaUnreachable, err.Error()
	r.status.Store(&s)
}

// Unavailable reports whether err says the server is gone rather than
// that it refused the statement: no PostgreSQL error at all (the network,
// a closed connection), or one of the connection-exception (08) or
// operator-intervention (57: shutting down, cannot connect now) classes.
func Unavailable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return true
	}
	return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57")
}

// Check measures the replica now and stores what it found. The primary's
// position is read first: a replica that has replayed it is not behind.
func (r *Replica) Check(ctx context.Context) ReplicaStatus {
	ctx, cancel := context.WithTimeout(ctx, max(r.interval, 2*time.Second))
	defer cancel()
	s := ReplicaStatus{CheckedAt: time.Now()}
	primaryAt, perr := CurrentLSN(ctx, r.primary)
	var (
		inRecovery bool
		replayed   sql.NullString
		since      sql.NullFloat64
	)
	err := r.SQL.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,
		extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8`).Scan(&inRecovery, &replayed, &since)
	switch {
	case err != nil:
		s.State, s.Err = ReplicaUnreachable, err.Error()
	case !inRecovery || !replayed.Valid:
		s.State, s.Err = ReplicaNotStandby, "pg_is_in_recovery() is false: the server is not a standby"
	default:
		s.Replayed, _ = ParseLSN(replayed.String)
		switch {
		case perr == nil && s.Replayed >= primaryAt:
			s.Lag = 0
		case since.Valid:
			s.Lag = time.Duration(since.Float64 * float64(time.Second))
		default:
			// No transaction replayed since the standby started and not
			// level with the primary: how stale it is is unknown.
			s.Lag = r.MaxLag + time.Nanosecond
		}
		s.Lag = max(s.Lag, 0)
		s.State = ReplicaOK
		if s.Lag > r.MaxLag {
			s.State = ReplicaLagging
			s.Err = fmt.Sprintf("replay is %s behind the primary, more than the %s allowed", s.Lag.Round(time.Millisecond), r.MaxLag)
		}
	}
	r.status.Store(&s)
	return s
}
