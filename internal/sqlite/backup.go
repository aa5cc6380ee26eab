package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"logistics/ent/migrate"
)

// A backup of a SQLite database is VACUUM INTO a temporary file beside the
// target: one read transaction, which in WAL mode writers do not wait for,
// and a compact copy. SQLite does not fsync what VACUUM INTO writes, so the
// copy is fsynced here before it takes the target's name; a crash leaves
// either no file or a whole one under that name. The copy is switched to
// the rollback journal (journal_mode=DELETE): a single file that any
// sqlite3 opens, read-only media included. The service switches it back
// to WAL when it opens it.
//
// The reader holds the log's start while it copies, so the serving
// process's log restarts (checkpoint.go) are given up until it ends: the
// log grows by what is written meanwhile, and each given-up restart held
// that process's writers for its wait (50 ms, doubling up to 800 ms, at
// most a quarter of the time).

// ErrExists is returned by Backup when the target exists and overwriting
// was not asked for.
var ErrExists = errors.New("the file exists")

// Backup writes a consistent copy of d, a file database, to target:
// a plain SQLite file (mode 0600: it holds key and password hashes).
// Without overwrite an existing target is refused.
func (d *DB) Backup(ctx context.Context, target string, overwrite bool) (int64, error) {
	var source string
	if err := d.SQL.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&source); err != nil || source == "" {
		return 0, fmt.Errorf("backup: an in-memory database, or SQLite did not name its file (%v)", err)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return 0, err
	}
	if sameFile(abs, source) || sameFile(abs, source+"-wal") || sameFile(abs, source+"-shm") ||
		abs == source || abs == source+"-wal" || abs == source+"-shm" {
		return 0, fmt.Errorf("backup: %s is the database itself", target)
	}
	dir := filepath.Dir(abs)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, fmt.Errorf("backup: the directory %s does not exist", dir)
	}
	if !overwrite {
		if _, err := os.Lstat(abs); err == nil {
			return 0, fmt.Errorf("backup: %s: %w (add --force to replace it)", target, ErrExists)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	done := false
	defer func() {
		if !done {
			removeFiles(tmpName)
		}
	}()
	// database/sql's own connection, not the gated driver: this is a read.
	if _, err := d.SQL.ExecContext(ctx, "VACUUM INTO ?", tmpName); err != nil {
		return 0, fmt.Errorf("backup: VACUUM INTO: %w", err)
	}
	if err := toRollbackJournal(ctx, tmpName); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if err := syncFile(tmpName); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if overwrite {
		// A journal or log left beside the old file (a crashed sqlite3
		// session's) would be replayed into the new copy when it opens.
		for _, suffix := range []string{"-journal", "-wal", "-shm"} {
			if err := os.Remove(abs + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return 0, fmt.Errorf("backup: %w", err)
			}
		}
		err = os.Rename(tmpName, abs)
	} else if err = os.Link(tmpName, abs); err == nil {
		// A link fails when the target appeared meanwhile: no overwrite.
		err = os.Remove(tmpName)
	} else if errors.Is(err, os.ErrExist) {
		return 0, fmt.Errorf("backup: %s: %w (add --force to replace it)", target, ErrExists)
	}
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	done = true
	if err := syncDir(dir); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// toRollbackJournal sets the copy's journal mode to DELETE, so that it is
// one self-contained file.
func toRollbackJournal(ctx context.Context, path string) error {
	db, err := sql.Open(driverName, "file:"+path+"?_journal_mode=DELETE&_busy_timeout=0")
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		return fmt.Errorf("journal mode of the copy: %w", err)
	}
	if mode != "delete" {
		return fmt.Errorf("journal mode of the copy: %s", mode)
	}
	return nil
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	Target   string // the database file replaced
	Previous string // where the database it replaced was kept ("" if there was none)
	Size     int64
}

// ErrInUse is returned by Restore when another connection has the target
// database open (a running server, another command).
var ErrInUse = errors.New("the database is in use")

// Restore replaces the SQLite database of dsn with a copy of from, after
// checking from with PRAGMA integrity_check. It refuses while any other
// connection, in any process, has the database open: it takes SQLite's
// exclusive lock on the file first (an open WAL-mode connection holds a
// shared lock for as long as it is open) and holds it until the copy has
// the database's name. The database it replaces is kept beside it, linked
// under <file>.replaced-<UTC time>, its log checkpointed into it first; a
// crash at any point leaves the old database or the new one. synchronous
// is the configured PRAGMA synchronous (the checkpoint's fsyncs follow it).
func Restore(ctx context.Context, dsn, from, synchronous string) (RestoreResult, error) {
	var res RestoreResult
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || inMemory(dsn) {
		return res, errors.New("restore: only a SQLite file database can be restored this way")
	}
	target, err := filepath.Abs(Path(dsn))
	if err != nil {
		return res, err
	}
	res.Target = target
	src, err := os.Open(from)
	if err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() {
		return res, fmt.Errorf("restore: %s is not a regular file", from)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	mode, _, _, err := chooseSynchronous(dsn, synchronous)
	if err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}

	// 1. The copy, beside the target, checked before anything is touched.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".restore-*")
	if err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	tmpName := tmp.Name()
	done := false
	defer func() {
		if !done {
			removeFiles(tmpName)
		}
	}()
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, fmt.Errorf("restore: copy %s: %w", from, err)
	}
	if err := checkBackup(ctx, tmpName); err != nil {
		return res, fmt.Errorf("restore: %s: %w", from, err)
	}
	if err := syncFile(tmpName); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}

	// 2. The target, locked against every other connection.
	prev, statErr := os.Stat(target)
	exists := statErr == nil
	if exists {
		// The restored file keeps the permissions of the one it replaces.
		if err := os.Chmod(tmpName, prev.Mode().Perm()); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
		// No busy timeout: a lock held elsewhere is an answer, not a wait.
		lock, err := sql.Open(driverName, withDefaults("file:"+target+"?_busy_timeout=0&_locking_mode=EXCLUSIVE", mode))
		if err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
		defer lock.Close()
		conn, err := lock.Conn(ctx)
		if err != nil {
			return res, inUse(target, err)
		}
		defer conn.Close()
		// The first statement takes the exclusive lock (EXCLUSIVE locking
		// mode in WAL mode keeps the log's index in this process's memory,
		// which needs the lock); the checkpoint copies the log into the
		// file, so that the file kept aside is whole without it.
		var busy, logFrames, copied int
		if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &copied); err != nil {
			return res, inUse(target, err)
		}
		if busy != 0 {
			return res, fmt.Errorf("restore: %s: %w (the log could not be checkpointed)", target, ErrInUse)
		}
		if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
			return res, inUse(target, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck
		res.Previous = fmt.Sprintf("%s.replaced-%s", target, time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Link(target, res.Previous); err != nil {
			return res, fmt.Errorf("restore: keep the current database: %w", err)
		}
		// The log was checkpointed and truncated: removing it loses
		// nothing, and a stale log must not be replayed into the copy.
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if err := os.Remove(target + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return res, fmt.Errorf("restore: %w", err)
			}
		}
	} else {
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if _, err := os.Stat(target + suffix); err == nil {
				return res, fmt.Errorf("restore: %s%s exists without its database: remove it first", target, suffix)
			}
		}
	}

	// 3. The switch.
	if err := os.Rename(tmpName, target); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	done = true
	if err := syncDir(dir); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	if fi, err := os.Stat(target); err == nil {
		res.Size = fi.Size()
	}
	return res, nil
}

// checkBackup opens path (a copy nothing else uses) and checks it:
// PRAGMA integrity_check answers ok, and it holds this service's tables.
func checkBackup(ctx context.Context, path string) error {
	db, err := sql.Open(driverName, "file:"+path+"?_busy_timeout=0")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("PRAGMA integrity_check: %w: not a SQLite database, or a damaged one", err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		if s != "ok" && len(problems) < 10 {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("PRAGMA integrity_check: %w: not a SQLite database, or a damaged one", err)
	}
	rows.Close()
	if len(problems) > 0 {
		return fmt.Errorf("PRAGMA integrity_check failed: %s", strings.Join(problems, "; "))
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", migrate.HubsTable.Name).Scan(&n); err != nil || n == 0 {
		return fmt.Errorf("not a database of this service (no %s table)", migrate.HubsTable.Name)
	}
	// The copy must not carry a log of its own: it would be replayed into
	// the database it becomes.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		return err
	}
	if mode != "delete" {
		return fmt.Errorf("the copy keeps journal mode %s, not delete", mode)
	}
	return nil
}

// inUse words a failure to lock the target: SQLITE_BUSY (or LOCKED) means
// another connection has it open.
func inUse(target string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return fmt.Errorf("restore: %s: %w: stop the service (and any command using it), then restore, then start it", target, ErrInUse)
	}
	return fmt.Errorf("restore: lock %s: %w", target, err)
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

// removeFiles removes a temporary database and its companions.
func removeFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		_ = os.Remove(path + suffix)
	}
}
