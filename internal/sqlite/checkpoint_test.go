package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestCheckpointer: connections do not checkpoint at commit (no writer
// pays for it under the write lock), and the database's own checkpointer
// copies the log back in the background.
func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var auto int
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	writeRows(t, db, 0, 200)
	deadline := time.Now().Add(10 * time.Second)
	for {
		db.checkpoints.mu.Lock()
		s := db.checkpoints.last
		db.checkpoints.mu.Unlock()
		if s.Log > 0 && s.Checkpointed == s.Log {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete checkpoint within 10 s: last %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCheckpointerKilled: a process killed (SIGKILL) while it writes and
// checkpoints loses no committed row; the next open replays the log.
func TestCheckpointerKilled(t *testing.T) {
	if path := os.Getenv("CHECKPOINT_CHILD_DB"); path != "" {
		db, err := Open(context.Background(), path, Config{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for i := 0; ; i += 50 {
			writeRows(t, db, i, 50)
			fmt.Println(i + 50) // committed
		}
	}
	path := filepath.Join(t.TempDir(), "k.db")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCheckpointerKilled$")
	cmd.Env = append(os.Environ(), "CHECKPOINT_CHILD_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := 0
	lines := bufio.NewScanner(out)
	// Past a few checkpoint intervals: the kill lands beside checkpoints.
	for start := time.Now(); lines.Scan(); {
		n, err := strconv.Atoi(lines.Text())
		if err != nil {
			t.Fatalf("child: %s", lines.Text())
		}
		committed = n
		if time.Since(start) > 4*checkpointInterval && committed >= 2000 {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed
	if committed == 0 {
		t.Fatal("the child committed nothing")
	}
	db, err := Open(context.Background(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.SQL.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < committed {
		t.Fatalf("%d rows after the kill; the child had committed %d", n, committed)
	}
}

// writeRows commits n rows (ids from first) to table t, creating it.
func writeRows(t *testing.T, db *DB, first, n int) {
	ctx := context.Background()
	if _, err := db.SQL.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	for i := first; i < first+n; i++ {
		if _, err := db.SQL.ExecContext(ctx, "INSERT INTO t (id, v) VALUES (?, ?)", i, fmt.Sprintf("%0500d", i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckpointerBoundsLog: under writes with readers always in flight,
// the log is started over and its file stays bounded. Without the restart
// SQLite never finds the log free of readers and the file grows by every
// write (here to the whole amount written).
func TestCheckpointerBoundsLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "b.db")
	db, err := Open(ctx, path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const restartAt = 1024 // pages: 4 MiB
	db.checkpoints.restartFrames = restartAt
	if _, err := db.SQL.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)"); err != nil {
		t.Fatal(err)
	}

	// Readers: each holds a read of the log for a moment, one after another.
	readCtx, stopReading := context.WithCancel(ctx)
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for readCtx.Err() == nil {
				rows, err := db.SQL.QueryContext(readCtx, "SELECT id FROM t ORDER BY id DESC LIMIT 50")
				if err != nil {
					continue
				}
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}

	// Writers through the gate, as the service's: 128 MiB in 16 KiB rows,
	// a transaction per 8 rows; the log's file is measured as they go.
	// After each 16 MiB (four restart thresholds) they wait until the log
	// started over since the last wait — its header's salt moved (a writer found it copied and free of readers), or the
	// checkpointer completed a restart (the next write starts it over) —
	// so the test does not depend on the machine's speed. Paced by the
	// clock instead (64 MiB a second), the file reached 68–107 MiB in CI
	// beside the other packages' tests, where restarts gave up for longer.
	blob := make([]byte, 16<<10)
	var largest int64
	const total = 128 << 20
	const perWait = 4 * restartAt * 4 << 10
	startedOver := func() (salt uint32, restarts int) {
		db.checkpoints.mu.Lock()
		restarts = db.checkpoints.restarts
		db.checkpoints.mu.Unlock()
		return logSalt(t, path+"-wal"), restarts
	}
	salt, restarts := startedOver()
	first := salt
	for id := 0; id*len(blob) < total; id += 8 {
		if id > 0 && id*len(blob)%perWait == 0 {
			deadline := time.Now().Add(30 * time.Second)
			for {
				s, r := startedOver()
				if s != salt || r != restarts {
					salt, restarts = s, r
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the log did not start over within 30 s of %d MiB written", id*len(blob)>>20)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		tx, err := db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := id; i < id+8; i++ {
			if _, err := tx.ExecContext(ctx, "INSERT INTO t (id, v) VALUES (?, ?)", i, blob); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > largest {
			largest = fi.Size()
		}
	}
	stopReading()
	readers.Wait()

	// The bound: the log starts over at least once per 16 MiB written, so
	// at most two such stretches (32 MiB) lie between two start-overs; with
	// room. Without restarts (restartFrames out of reach) the first wait
	// fails: while it waits nothing writes, so the salt cannot move.
	const bound = 48 << 20
	if largest > bound {
		t.Fatalf("log file up to %d MiB while %d MiB were written; want at most %d MiB", largest>>20, total>>20, bound>>20)
	}
	t.Logf("log file up to %d MiB; started over %d times, %d restarts by the checkpointer", largest>>20, logSalt(t, path+"-wal")-first, restarts)
}

// logSalt counts the times the log started over, from its header: SQLite
// adds one to the first salt (bytes 16–19, big-endian) each time and writes
// the header with the new log's first frame. (The checkpoint sequence
// number beside it is the writing connection's own count, not the file's.)
func logSalt(t *testing.T, wal string) uint32 {
	f, err := os.Open(wal)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var h [20]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return 0 // not written yet
	}
	return binary.BigEndian.Uint32(h[16:])
}

// TestCheckpointerWaitsOutSlowReader: a restart gives up on a reader of
// the old log that holds on past its wait, the next waits twice as long and comes no sooner
// than three times the failed one's hold, and once the reader lets go
// the log is restarted and the wait is back to the first.
func TestCheckpointerWaitsOutSlowReader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// This test's checkpointer takes every turn, by hand.
	db.checkpoints.stop()
	c := &checkpointer{db: db.SQL, gate: db.checkpoints.gate, source: "test", restartFrames: 64}
	writeRows(t, db, 0, 1000) // about 2 MiB in the log, not copied
	reader := holdSnapshot(t, db, 1000)

	for turn, want := range []time.Duration{restartWait, 2 * restartWait, 4 * restartWait} {
		if wait := time.Until(c.notBefore); wait > 0 {
			c.run(ctx) // too soon: no restart is tried
			if c.failed != turn {
				t.Fatalf("turn %d: a restart was tried before its time (failed %d)", turn, c.failed)
			}
			time.Sleep(wait)
		}
		began := time.Now()
		c.run(ctx)
		took := time.Since(began)
		if c.failed != turn+1 || c.restarts != 0 {
			t.Fatalf("turn %d: failed %d, restarts %d; want a restart given up", turn, c.failed, c.restarts)
		}
		if took < want {
			t.Fatalf("turn %d: gave up after %v; want a wait of %v", turn, took, want)
		}
		// The spacing is three times the hold, which is at least the wait.
		if spacing := time.Until(c.notBefore); spacing < 2*want {
			t.Fatalf("turn %d: next try in %v; want at least %v", turn, spacing, 2*want)
		}
	}

	// The reader lets go during the next restart's wait (400 ms): it completes.
	time.Sleep(time.Until(c.notBefore))
	go func() {
		time.Sleep(restartWait)
		reader.ExecContext(context.Background(), "COMMIT") //nolint:errcheck // checked by the restart below
	}()
	c.run(ctx)
	if c.failed != 0 || c.restarts != 1 {
		t.Fatalf("after the reader let go: failed %d, restarts %d; want the log restarted", c.failed, c.restarts)
	}
	writeRows(t, db, 1000, 1)
	var s walState
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&s.Busy, &s.Log, &s.Checkpointed); err != nil {
		t.Fatal(err)
	}
	if s.Log > 8 {
		t.Fatalf("the log holds %d frames after the restart and one write; want it started over", s.Log)
	}
}

// holdSnapshot opens a read transaction on a connection of its own that has
// read table t (want rows) and so holds its snapshot of the log until
// COMMIT; the connection is closed when the test ends.
func holdSnapshot(t *testing.T, db *DB, want int) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	reader, err := db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	if _, err := reader.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != want {
		t.Fatalf("reader saw %d rows, %v; want %d", n, err, want)
	}
	return reader
}

// TestRestartStopsAtAStartedOverLog: a restart asked for a log of many
// frames that a writer has since started over (every frame copied back, no
// reader on it) has nothing left to do, even while a reader holds a
// snapshot in the new, short log: it reports success at once instead of
// holding the writers for its whole wait.
func TestRestartStopsAtAStartedOverLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "o.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.checkpoints.stop()
	c := &checkpointer{db: db.SQL, gate: db.checkpoints.gate, source: "test", restartFrames: 64}
	writeRows(t, db, 0, 1000)
	var s walState
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&s.Busy, &s.Log, &s.Checkpointed); err != nil {
		t.Fatal(err)
	}
	frames := s.Log
	if frames < 500 || s.Checkpointed != s.Log {
		t.Fatalf("PASSIVE: %+v; want the whole log (≥ 500 frames) copied back", s)
	}
	writeRows(t, db, 1000, 1) // the log starts over: a few frames
	reader := holdSnapshot(t, db, 1001)
	defer reader.ExecContext(context.Background(), "COMMIT") //nolint:errcheck
	const wait = 2 * time.Second
	restarted, held, err := c.restart(ctx, wait, frames)
	if err != nil || !restarted || held >= wait {
		t.Fatalf("restart of a log already started over: restarted %v after %v, %v; want true at once", restarted, held, err)
	}
	// The same reader against a log that did not start over holds the
	// restart for its wait: the answer above came from the log's length.
	restarted, held, err = c.restart(ctx, 100*time.Millisecond, 1)
	if err != nil || restarted || held < 100*time.Millisecond {
		t.Fatalf("restart with a reader on the log: restarted %v after %v, %v; want given up after the wait", restarted, held, err)
	}
}
