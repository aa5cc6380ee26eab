package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// SQLite in WAL mode copies the log back into the database file (a
// checkpoint) by itself when a commit leaves the log over 1,000 pages: that
// commit does the copying and its two fsyncs while it still holds the write
// lock, so every writer queued behind it waits too. Under a steady stream
// of writes that was most of a write's cost: W4 (create, submit and
// allocate an order) did 289–318 requests/s with it and 422–450 without.
//
// So connections opened here (driverName) turn the automatic checkpoint off, and each
// open database runs its own checkpointer: a PASSIVE checkpoint every
// checkpointInterval, outside any transaction. PASSIVE never waits for
// readers or writers; it copies what it can.
//
// Copying is not enough to keep the log small. SQLite writes from the
// start of the log again only when a writer begins while everything was
// copied and no reader still reads the old log; under a steady load some
// request is always reading, so the log grew by every write: 2 GB within
// one 7-second benchmark row (W5, about 200 MB/s), without bound on a
// server that is never idle. So when a PASSIVE checkpoint leaves the log
// longer than restartFrames, the checkpointer restarts it: it takes this
// process's write gate (gate.go: its writers wait on a channel, not in
// SQLite's sleeping busy handler), runs a RESTART checkpoint — it copies
// the few pages written since the PASSIVE one and waits up to restartWait
// for the readers of the old log to finish — and lets the writers in
// again; the next one writes from the start of the log. A restart that
// finds a reader holding on is given up and tried again later, with a
// longer wait (below). Its cost is the fsyncs of a complete checkpoint
// with the writers held: about 8–13 ms per restart in a W4 run (at most four a second, only
// while the log grows that fast), against a log of 78–99 MB instead of
// 1.5–2.9 GB and no loss of throughput in interleaved runs.
//
// A process killed between two checkpoints loses nothing: the log is the
// durable copy, and the next open replays it. Another process on the same
// file (a CLI command) runs its own checkpointer while it has the file
// open; two checkpointers take turns (a busy one skips its turn).

// driverName is go-sqlite3's driver with every connection's automatic
// checkpoint turned off.
const driverName = "sqlite3_logistics"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec("PRAGMA wal_autocheckpoint=0", nil)
		return err
	}})
}

// checkpointInterval is the time between two checkpoints.
const checkpointInterval = 250 * time.Millisecond

// restartFrames is the length of the log (in pages) from which the
// checkpointer restarts it: 16 MiB with SQLite's 4 KiB pages. The log's
// file then stays within this plus what is written in one interval.
const restartFrames = 4096

// restartWait bounds how long a restart waits for the old log's readers
// while this process's writers wait at the gate; restartPoll is the time
// between two looks.
//
// A reader that began before the log was copied holds on until its
// statement ends, which on a busy CPU can take longer than restartWait:
// with four readers querying back to back beside six spinning processes
// on two cores, 12 restarts in 23 gave up, several in a row, and in CI
// beside the other packages' tests the log grew past 100 MiB. So each
// restart that gives up doubles the next one's wait, up to
// restartWaitMax, and the next try comes no sooner than restartSpacing
// times the time the failed one held the writers: the writers are held
// at most a quarter of the time even if a reader never lets go (a long
// read by another process), and a slow reader is waited out. A restart
// that completes sets the wait back to restartWait.
const (
	restartWait    = 50 * time.Millisecond
	restartWaitMax = 800 * time.Millisecond
	restartSpacing = 3
	restartPoll    = 200 * time.Microsecond
)

// Before a restart the checkpointer catches up with PASSIVE checkpoints
// until one finds at most catchUpFrames written since the one before (1
// MiB), at most catchUpTurns times.
const (
	catchUpFrames = 256
	catchUpTurns  = 4
)

// checkpointer runs the checkpoints of db until stop is called.
type checkpointer struct {
	db            *sql.DB
	gate          *gate
	source        string
	file          string // the database file ("" if SQLite did not say)
	restartFrames int
	cancel        context.CancelFunc
	done          sync.WaitGroup

	// Only the checkpointer's goroutine touches these: restarts given up
	// in a row, and the time before which the next may not begin.
	failed    int
	notBefore time.Time

	mu       sync.Mutex
	last     walState // the last PASSIVE checkpoint's answer, for tests
	restarts int      // completed restarts, for tests
}

// walState is what PRAGMA wal_checkpoint answers: whether it was blocked,
// the frames in the log, and how many of them are in the database file.
type walState struct{ Busy, Log, Checkpointed int }

func startCheckpointer(db *sql.DB, g *gate, source string) *checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{db: db, gate: g, source: source, restartFrames: restartFrames, cancel: cancel}
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&c.file); err != nil {
		c.file = ""
	}
	c.done.Go(func() {
		t := time.NewTicker(checkpointInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c.run(ctx)
		}
	})
	return c
}

// run is one turn: a PASSIVE checkpoint, then a restart if the log is long.
func (c *checkpointer) run(ctx context.Context) {
	s, err := c.passive(ctx)
	if err != nil || s.Log < c.restartFrames || time.Now().Before(c.notBefore) {
		return
	}
	// The restart copies what was written since the last checkpoint with
	// the writers held, and a copy's fsyncs take about 2 ms a MiB here:
	// first catch up without holding them (each PASSIVE copies what was
	// written during the one before), until little is left.
	for range catchUpTurns {
		prev := s
		if s, err = c.passive(ctx); err != nil {
			return
		}
		if s.Log-prev.Log <= catchUpFrames {
			break
		}
	}
	// A checkpoint that copies everything fsyncs the database file, and
	// the one under the gate would flush every page the PASSIVE ones wrote
	// since the last complete one (9 ms and more in a W4 run). Flushed
	// here, the writers do not wait for it.
	c.flush()
	wait := restartWait << min(c.failed, 4)
	wait = min(wait, restartWaitMax)
	restarted, held, err := c.restart(ctx, wait, s.Log)
	if err != nil {
		if ctx.Err() == nil {
			slog.Warn("sqlite log restart failed; trying again", "db", c.source, "err", err)
		}
		return
	}
	if !restarted {
		c.failed++
		c.notBefore = time.Now().Add(restartSpacing * held)
		if wait == restartWaitMax {
			slog.Warn("sqlite log not restarted: a reader held on to it; trying again",
				"db", c.source, "waited", held, "log_mib", s.Log>>8, "tries", c.failed)
		}
		return
	}
	c.failed = 0
	c.mu.Lock()
	c.restarts++
	c.mu.Unlock()
}

// flush fsyncs the database file and its log (fsync is per file, whoever
// wrote the pages); errors are left to SQLite's own fsyncs to report.
func (c *checkpointer) flush() {
	if c.file == "" {
		return
	}
	for _, name := range []string{c.file, c.file + "-wal"} {
		if f, err := os.Open(name); err == nil {
			_ = f.Sync()
			f.Close()
		}
	}
}

// passive runs a PASSIVE checkpoint and keeps its answer.
func (c *checkpointer) passive(ctx context.Context) (walState, error) {
	var s walState
	err := c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&s.Busy, &s.Log, &s.Checkpointed)
	if err != nil {
		if ctx.Err() == nil {
			slog.Warn("sqlite checkpoint failed; trying again", "db", c.source, "err", err)
		}
		return s, err
	}
	c.mu.Lock()
	c.last = s
	c.mu.Unlock()
	return s, nil
}

// restart runs RESTART checkpoints with this process's writers held at
// the gate until one completes, for at most wait, and says how long it
// held them. It reports false when a reader (or another process's writer)
// held on past that: nothing is lost, a later turn tries again. It
// reports true, without waiting, when the log holds fewer than frames:
// it started over since the caller looked (a writer found it copied and
// free of readers) and is short again.
//
// SQLite's busy handler would do the waiting, but it sleeps 1, 2, 5, 10 …
// ms between tries, and the writers wait at the gate for all of it: with
// it a restart held them 9–41 ms in a W4 run. Each try here takes the
// write lock, copies what is left (nothing after the first), and checks
// the readers without waiting (busy timeout 0); the tries are restartPoll
// apart.
func (c *checkpointer) restart(ctx context.Context, wait time.Duration, frames int) (restarted bool, held time.Duration, err error) {
	// The connection is taken before the gate: under load the pool's
	// connections are all reading, and the writers would wait for one too.
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return false, 0, err
	}
	defer conn.Close()
	// The connection goes back to the pool afterwards: it gets its busy
	// timeout back, or is dropped from the pool if that fails.
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return false, 0, err
	}
	defer func() {
		reset := fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeout.Milliseconds())
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), reset); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	leave, err := c.gate.enter(ctx)
	if err != nil {
		return false, 0, err
	}
	defer leave()
	start := time.Now()
	for {
		var s walState
		if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&s.Busy, &s.Log, &s.Checkpointed); err != nil {
			return false, time.Since(start), err
		}
		held = time.Since(start)
		if s.Busy == 0 || s.Log < frames {
			return true, held, nil
		}
		if held > wait {
			return false, held, nil
		}
		time.Sleep(restartPoll)
	}
}

// stop ends the checkpoints and waits for the one under way. Closing the
// last connection then checkpoints the rest and removes the log.
func (c *checkpointer) stop() {
	if c == nil {
		return
	}
	c.cancel()
	c.done.Wait()
}
