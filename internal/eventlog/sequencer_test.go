package eventlog_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
)

// The child process of TestKilledBeforeNumbering: the test binary run again
// with these variables set.
const (
	seqChildDB      = "LOGISTICS_SEQUENCER_CHILD_DB"
	seqChildSandbox = "LOGISTICS_SEQUENCER_CHILD_SANDBOX"
	seqChildWrites  = 5
)

// TestSequencerChildProcess is not a test on its own: it is the server that
// TestKilledBeforeNumbering starts and kills. Its sequencer stops before
// every numbering run, so the hubs it creates commit unnumbered.
func TestSequencerChildProcess(t *testing.T) {
	dsn := os.Getenv(seqChildDB)
	if dsn == "" {
		t.Skip("runs as the child of TestKilledBeforeNumbering")
	}
	a := openApp(t, dsn, os.Getenv(seqChildSandbox))
	eventlog.SetBeforeRun(func() { select {} }) // numbering never happens here
	env := a.Envs.Production()
	ctx := ent.NewContext(environment.NewContext(context.Background(), env), env.DB.Client)
	for i := range seqChildWrites {
		go func() {
			// Waits for its numbering, which never comes (the writer's wait
			// is bounded; the kill comes first).
			_, _ = a.Service.CreateHub(ctx, ent.CreateHubInput{Code: fmt.Sprintf("KILL%d", i), Name: "x", Country: "NL"})
		}()
	}
	for unnumbered(t, env.DB.SQL) < seqChildWrites {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("committed unnumbered")
	select {}
}

// TestKilledBeforeNumbering: a server commits events and is killed with
// SIGKILL before its sequencer numbers them. Another instance numbers them
// (its first run, then its poll), after the numbers already taken, with no
// number missing or taken twice. PostgreSQL only: SQLite numbers at commit.
func TestKilledBeforeNumbering(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("the sequencer runs on PostgreSQL")
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	prod, sandbox := apptest.DSN(t, "production"), apptest.DSN(t, "sandbox")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSequencerChildProcess$", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), seqChildDB+"="+prod, seqChildSandbox+"="+sandbox)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &strings.Builder{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	ready := false
	for sc := bufio.NewScanner(out); sc.Scan(); {
		if sc.Text() == "committed unnumbered" {
			ready = true
			break
		}
	}
	if !ready {
		t.Fatalf("the child ended before committing:\n%s", logs)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	db, err := sql.Open("pgx", prod)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := unnumbered(t, db); n != seqChildWrites {
		t.Fatalf("%d unnumbered events after the kill, want %d", n, seqChildWrites)
	}
	var before int64
	if err := db.QueryRow(`SELECT last_value FROM event_counter WHERE id = 1`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	// No query through ent sees them before they have their numbers (the
	// interceptor of internal/database).
	edb, err := database.Open(context.Background(), prod, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer edb.Close()
	if n, err := edb.Client.Event.Query().Where(event.Type("hub.created")).Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("ent sees %d unnumbered hub.created events (%v), want 0", n, err)
	}

	old := eventlog.SequencePollInterval
	eventlog.SequencePollInterval = 50 * time.Millisecond
	defer func() { eventlog.SequencePollInterval = old }()
	openApp(t, prod, sandbox)
	for end := time.Now().Add(30 * time.Second); unnumbered(t, db) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d events still unnumbered 30 s after a new instance started", unnumbered(t, db))
		}
	}
	var count, distinct, max, last int64
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT sequence), max(sequence) FROM events`).Scan(&count, &distinct, &max); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT last_value FROM event_counter WHERE id = 1`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if count != distinct || max != count || last != max {
		t.Fatalf("%d events, %d distinct numbers, highest %d, counter %d: want all equal (1…n, none missing)", count, distinct, max, last)
	}
	var low int64
	if err := db.QueryRow(`SELECT min(sequence) FROM events WHERE type = 'hub.created' AND subject_id IN (SELECT id FROM hubs WHERE code LIKE 'KILL%')`).Scan(&low); err != nil {
		t.Fatal(err)
	}
	if low <= before {
		t.Fatalf("an event of the killed writer got #%d, not after the %d numbers taken before", low, before)
	}
}

// unnumbered counts the committed events without a sequence number.
func unnumbered(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE sequence IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// openApp opens an instance over the two databases, its listener and
// sequencer running, closed at the end of the test.
func openApp(t *testing.T, prod, sandbox string) *app.App {
	t.Helper()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.DB, cfg.SandboxDB = prod, sandbox
	cfg.NoDemoData = true
	cfg.AdminPassword = "child-process-password"
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}
