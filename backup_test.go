package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers "sqlite3", to read copies directly

	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
)

// backupWrite is one REST create of a writer: when it was sent and
// answered.
type backupWrite struct {
	code       string
	start, end time.Time
	status     int
}

// runBinary runs the service's binary and returns its exit code and output.
func runBinary(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LOGISTICS_NO_DEMO_DATA=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return 0, string(out)
}

// TestBackupUnderWritesAndRestore backs up a running service's production
// database (a separate process, the real binary) while four writers create
// hubs through REST, restores the copy into a fresh directory, and checks
// the copy: PRAGMA integrity_check is ok, every hub whose 201 arrived
// before the backup began is in it, the demo data is whole, and the
// service opens it. It also measures how long the writers were held: the
// slowest write during the backup against the slowest before it.
func TestBackupUnderWritesAndRestore(t *testing.T) {
	if apptest.Postgres() {
		t.Skip("SQLite's backup; PostgreSQL is refused with pg_dump's instructions (TestBackupPostgresExplains)")
	}
	srv := apptest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Enough data that the copy takes a while (about 25 MB).
	counts, err := demodata.Load(ctx, srv.Env(environment.Production).DB, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	bin := apptest.BuildBinary(t)
	dbPath := srv.App.Config.DB
	backupDir := t.TempDir()
	backupFile := filepath.Join(backupDir, "production-backup.db")

	// A long read (an export, say) holds a snapshot from before the first
	// write until the backup has ended: the serving process's checkpoints
	// cannot copy past it, so every write of the test is in the log only,
	// and a copy of the database file alone would miss them all.
	pin, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Close()
	pinTx, err := pin.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n0 int
	if err := pinTx.QueryRow("SELECT count(*) FROM hubs").Scan(&n0); err != nil {
		t.Fatal(err)
	}

	var (
		mu     sync.Mutex
		writes []backupWrite
		stop   = make(chan struct{})
		wg     sync.WaitGroup
	)
	for w := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				code := fmt.Sprintf("BK%d-%d", w, n)
				body, _ := json.Marshal(map[string]any{"code": code, "name": "Backup " + code, "address": map[string]any{"country": "NL"}})
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/hubs", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+srv.Keys[environment.Production])
				wr := backupWrite{code: code, start: time.Now()}
				resp, err := srv.Client.Do(req)
				wr.end = time.Now()
				if err == nil {
					wr.status = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				writes = append(writes, wr)
				mu.Unlock()
			}
		})
	}
	time.Sleep(1500 * time.Millisecond) // writes before the backup: the baseline
	backupStart := time.Now()
	code, out := runBinary(t, bin, "backup", "--env", "production", "--to", backupFile, "--db", dbPath, "--sandbox-db", srv.App.Config.SandboxDB)
	backupEnd := time.Now()
	_ = pinTx.Rollback()
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("backup: exit %d: %s", code, out)
	}
	t.Logf("backup: %s", strings.TrimSpace(out))

	// Writes answered 201 before the backup began must be in the copy.
	var before, during []time.Duration
	var ackedBefore []string
	ackedDuring, failed := 0, 0
	for _, w := range writes {
		if w.status != http.StatusCreated {
			failed++
			continue
		}
		switch {
		case w.end.Before(backupStart):
			ackedBefore = append(ackedBefore, w.code)
			before = append(before, w.end.Sub(w.start))
		case w.start.Before(backupEnd) && w.end.After(backupStart):
			during = append(during, w.end.Sub(w.start))
			if w.start.After(backupStart) && w.end.Before(backupEnd) {
				ackedDuring++
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d writes failed", failed, len(writes))
	}
	if len(ackedBefore) == 0 || len(during) == 0 {
		t.Fatalf("no writes before (%d) or during (%d) the backup", len(ackedBefore), len(during))
	}
	slices.Sort(before)
	slices.Sort(during)
	p99 := func(d []time.Duration) time.Duration { return d[len(d)*99/100] }
	t.Logf("backup took %s; writes: %d before it (max %s, p99 %s), %d overlapping it (max %s, p99 %s), %d both sent and answered within it",
		backupEnd.Sub(backupStart).Round(time.Millisecond),
		len(before), before[len(before)-1].Round(time.Millisecond), p99(before).Round(time.Millisecond),
		len(during), during[len(during)-1].Round(time.Millisecond), p99(during).Round(time.Millisecond), ackedDuring)
	// Writers go on while the copy is made: some writes were sent and
	// answered inside the backup's window, and none waited for all of it.
	if ackedDuring == 0 {
		t.Errorf("no write was answered while the backup ran (%s): the writers were held", backupEnd.Sub(backupStart))
	}
	if maxDuring := during[len(during)-1]; maxDuring > 2*time.Second {
		t.Errorf("a write took %s during the backup", maxDuring)
	}

	// The copy is a plain SQLite file: no log beside it, rollback journal.
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(backupFile + suffix); err == nil {
			t.Errorf("the backup has a %s file", suffix)
		}
	}
	if fi, err := os.Stat(backupFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v %v, want mode 0600", fi, err)
	}
	if hdr, err := os.ReadFile(backupFile); err != nil || len(hdr) < 20 || hdr[18] != 1 || hdr[19] != 1 {
		t.Errorf("the backup's header does not say rollback journal (bytes 18-19 = 1 1)")
	}

	// Restore into a fresh directory, then read the restored file directly.
	fresh := t.TempDir()
	restored := filepath.Join(fresh, "production.db")
	code, out = runBinary(t, bin, "restore", "--env", "production", "--from", backupFile, "--data-dir", fresh)
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, out)
	}
	if strings.Contains(out, "kept as") {
		t.Errorf("a fresh directory had no database to keep aside: %s", out)
	}
	db, err := sql.Open("sqlite3", "file:"+restored+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check of the restored database: %q %v", integrity, err)
	}
	inCopy := map[string]bool{}
	rows, err := db.Query("SELECT code FROM hubs WHERE code LIKE 'BK%'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		inCopy[c] = true
	}
	rows.Close()
	missing := 0
	for _, c := range ackedBefore {
		if !inCopy[c] {
			missing++
			if missing <= 5 {
				t.Errorf("hub %s was acknowledged before the backup began and is not in the copy", c)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes missing", missing, len(ackedBefore))
	}
	t.Logf("%d writes acknowledged before the backup, %d of them missing from the copy; the copy holds %d of the %d writes made", len(ackedBefore), missing, len(inCopy), len(writes))
	var items, orders int
	if err := db.QueryRow("SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM orders)").Scan(&items, &orders); err != nil {
		t.Fatal(err)
	}
	if items != counts.Items || orders != counts.Orders {
		t.Errorf("restored %d items and %d orders, want %d and %d", items, orders, counts.Items, counts.Orders)
	}
	db.Close()

	// The service opens the restored database (it becomes WAL again) and
	// serves it: a command that migrates and writes.
	if code, out := runBinary(t, bin, "tokens", "create", "--name", "after-restore", "--env", "production", "--scopes", "all", "--data-dir", fresh); code != 0 {
		t.Fatalf("the service does not open the restored database: exit %d: %s", code, out)
	}

	t.Run("refuses while the service runs", func(t *testing.T) {
		before, _ := os.ReadFile(dbPath)
		code, out := runBinary(t, bin, "restore", "--env", "production", "--from", backupFile, "--db", dbPath)
		if code == 0 || !strings.Contains(out, "the database is in use") || !strings.Contains(out, "stop the service") {
			t.Fatalf("restore over a running service: exit %d: %s", code, out)
		}
		after, _ := os.ReadFile(dbPath)
		if !bytes.Equal(before, after) {
			t.Error("the refused restore changed the database")
		}
		if m, _ := filepath.Glob(dbPath + ".replaced-*"); len(m) > 0 {
			t.Errorf("the refused restore kept a copy aside: %v", m)
		}
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dbPath), ".*restore-*")); len(m) > 0 {
			t.Errorf("temporary files left: %v", m)
		}
	})

	t.Run("replaces a crashed database and keeps the old one whole", func(t *testing.T) {
		// A database whose last write is only in its log, as a process
		// killed between two checkpoints leaves it: the file and its log
		// copied while a connection with checkpoints off has them open.
		crashed := t.TempDir()
		live := filepath.Join(t.TempDir(), "live.db")
		if err := copyFile(backupFile, live); err != nil {
			t.Fatal(err)
		}
		conn, err := sql.Open("sqlite3", "file:"+live+"?_journal_mode=WAL")
		if err != nil {
			t.Fatal(err)
		}
		conn.SetMaxOpenConns(1)
		for _, q := range []string{"PRAGMA wal_autocheckpoint=0", "UPDATE hubs SET name = 'only in the log' WHERE code = '" + ackedBefore[0] + "'"} {
			if _, err := conn.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		target := filepath.Join(crashed, "production.db")
		for _, suffix := range []string{"", "-wal"} {
			if err := copyFile(live+suffix, target+suffix); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
		if fi, err := os.Stat(target + "-wal"); err != nil || fi.Size() == 0 {
			t.Fatalf("no log to replay: %v %v", fi, err)
		}
		code, out := runBinary(t, bin, "restore", "--env", "production", "--from", backupFile, "--data-dir", crashed)
		if code != 0 || !strings.Contains(out, "kept as") {
			t.Fatalf("restore over a stopped database: exit %d: %s", code, out)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(target + suffix); err == nil {
				t.Errorf("a stale %s file beside the restored database", suffix)
			}
		}
		kept, _ := filepath.Glob(target + ".replaced-*")
		if len(kept) != 1 {
			t.Fatalf("the replaced database was not kept: %v", kept)
		}
		var name string
		for file, want := range map[string]string{kept[0]: "only in the log", target: "Backup " + ackedBefore[0]} {
			db, err := sql.Open("sqlite3", "file:"+file+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow("SELECT name FROM hubs WHERE code = ?", ackedBefore[0]).Scan(&name); err != nil || name != want {
				t.Errorf("%s: hub %s is named %q (%v), want %q", filepath.Base(file), ackedBefore[0], name, err, want)
			}
			db.Close()
		}
	})

	t.Run("refuses an existing target without --force", func(t *testing.T) {
		before, _ := os.ReadFile(backupFile)
		code, out := runBinary(t, bin, "backup", "--env", "production", "--to", backupFile, "--db", dbPath)
		if code == 0 || !strings.Contains(out, "the file exists") || !strings.Contains(out, "--force") {
			t.Fatalf("backup over an existing file: exit %d: %s", code, out)
		}
		if after, _ := os.ReadFile(backupFile); !bytes.Equal(before, after) {
			t.Error("the refused backup changed the existing file")
		}
		code, out = runBinary(t, bin, "backup", "--env", "production", "--to", backupFile, "--db", dbPath, "--force")
		if code != 0 {
			t.Fatalf("backup --force: exit %d: %s", code, out)
		}
		if m, _ := filepath.Glob(filepath.Join(backupDir, ".*tmp-*")); len(m) > 0 {
			t.Errorf("temporary files left: %v", m)
		}
		code, out = runBinary(t, bin, "backup", "--env", "production", "--to", dbPath, "--db", dbPath, "--force")
		if code == 0 || !strings.Contains(out, "is the database itself") {
			t.Errorf("backup onto the database itself: exit %d: %s", code, out)
		}
	})

	t.Run("refuses a damaged or foreign source", func(t *testing.T) {
		good, err := os.ReadFile(backupFile)
		if err != nil {
			t.Fatal(err)
		}
		target := t.TempDir()
		// A database to protect: the refused restores must leave it.
		if code, out := runBinary(t, bin, "restore", "--env", "sandbox", "--from", backupFile, "--data-dir", target); code != 0 {
			t.Fatalf("restore: exit %d: %s", code, out)
		}
		sandbox := filepath.Join(target, "sandbox.db")
		protected, _ := os.ReadFile(sandbox)
		damaged := slices.Clone(good)
		// Overwrite pages in the middle of the file (past the schema):
		// the header stays valid, the b-trees do not.
		for i := len(damaged) / 2; i < len(damaged)/2+3*4096; i++ {
			damaged[i] = 0x5a
		}
		notSQLite := []byte("this is not a database\n")
		emptyDB := filepath.Join(t.TempDir(), "empty.db")
		if e, err := sql.Open("sqlite3", emptyDB); err == nil {
			_, _ = e.Exec("CREATE TABLE other (x)")
			e.Close()
		}
		foreign, _ := os.ReadFile(emptyDB)
		for name, tc := range map[string]struct {
			data []byte
			want string
		}{
			"damaged":    {damaged, "PRAGMA integrity_check"},
			"not sqlite": {notSQLite, "not a SQLite database"},
			"foreign":    {foreign, "not a database of this service"},
		} {
			src := filepath.Join(t.TempDir(), "src.db")
			if err := os.WriteFile(src, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out := runBinary(t, bin, "restore", "--env", "sandbox", "--from", src, "--data-dir", target)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("%s: exit %d: %s", name, code, out)
			}
			if after, _ := os.ReadFile(sandbox); !bytes.Equal(protected, after) {
				t.Errorf("%s: the refused restore changed the database", name)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(target, ".*")); len(m) > 0 {
			t.Errorf("temporary files left: %v", m)
		}
	})
}

// TestBackupPostgresExplains: on PostgreSQL, backup and restore explain
// what to use instead (pg_dump, pg_restore, point-in-time recovery), exit
// non-zero, write nothing and do not show the password.
func TestBackupPostgresExplains(t *testing.T) {
	dsn := "postgres://logistics:s3cret@127.0.0.1:1/logistics?sslmode=disable"
	if apptest.Postgres() {
		dsn = apptest.DSN(t, "production")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "p.db")
	for _, args := range [][]string{
		{"backup", "--env", "production", "--to", target},
		{"restore", "--env", "production", "--from", target},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(args, "--db", dsn, "--data-dir", dir), func(string) string { return "" }, &stdout, &stderr)
		if err == nil {
			t.Fatalf("%s on PostgreSQL succeeded: %s", args[0], stdout.String())
		}
		msg := err.Error()
		for _, want := range []string{"PostgreSQL", "pg_dump", "pg_restore", "point-in-time recovery", "docs/operations.md"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the message does not say %q: %s", args[0], want, msg)
			}
		}
		if strings.Contains(msg, "s3cret") {
			t.Errorf("%s: the message shows the password: %s", args[0], msg)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("a file was written")
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}
