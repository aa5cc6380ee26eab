package database

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// SQLite in WAL mode copies the log back into the database file (a
// checkpoint) by itself when a commit leaves the log over 1,000 pages: that
// commit does the copying and its two fsyncs while it still holds the write
// lock, so every writer queued behind it waits too. Under a steady stream
// of writes that was most of a write's cost: W4 (create, submit and
// allocate an order) did 289–318 requests/s with it and 422–450 without
// (bench/README.md, session 7).
//
// So connections opened here turn the automatic checkpoint off, and each
// open database runs its own checkpointer: a PASSIVE checkpoint every
// checkpointInterval, outside any transaction. PASSIVE never waits for
// readers or writers; it copies what it can, and SQLite starts the log
// from the beginning again at the next write once everything was copied
// and no reader needs the old pages. A process killed between two
// checkpoints loses nothing: the log is the durable copy, and the next
// open replays it. Another process on the same file (a CLI command) runs
// its own checkpointer while it has the file open; two checkpointers take
// turns (a busy one skips its turn).

const sqliteDriver = "sqlite3_logistics"

func init() {
	sql.Register(sqliteDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec("PRAGMA wal_autocheckpoint=0", nil)
		return err
	}})
}

// checkpointInterval is the time between two checkpoints.
const checkpointInterval = 250 * time.Millisecond

// checkpointer runs PASSIVE checkpoints of db until stop is called.
type checkpointer struct {
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu   sync.Mutex
	last walState // the last checkpoint's answer, for tests
}

// walState is what PRAGMA wal_checkpoint answers: whether it was blocked,
// the frames in the log, and how many of them are in the database file.
type walState struct{ Busy, Log, Checkpointed int }

func startCheckpointer(db *sql.DB, source string) *checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{cancel: cancel}
	c.done.Go(func() {
		t := time.NewTicker(checkpointInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			var s walState
			err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&s.Busy, &s.Log, &s.Checkpointed)
			if err != nil {
				if ctx.Err() == nil {
					slog.Warn("sqlite checkpoint failed; trying again", "db", source, "err", err)
				}
				continue
			}
			c.mu.Lock()
			c.last = s
			c.mu.Unlock()
		}
	})
	return c
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
