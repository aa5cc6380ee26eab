package webhooks_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"logistics/ent"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/webhooks"
)

// The child process of TestKilledAfterCommitDeliversAfterRestart: the test
// binary run again with these variables set.
const (
	childMode    = "LOGISTICS_WEBHOOK_CHILD"    // "write": commit events and report them; "drain": deliver only
	childDB      = "LOGISTICS_WEBHOOK_CHILD_DB" // production DSN
	childSandbox = "LOGISTICS_WEBHOOK_CHILD_SANDBOX"
	childURL     = "LOGISTICS_WEBHOOK_CHILD_URL" // the receiver
)

// TestWebhookChildProcess is not a test on its own: it is the server
// process that TestKilledAfterCommitDeliversAfterRestart starts and kills.
func TestWebhookChildProcess(t *testing.T) {
	mode := os.Getenv(childMode)
	if mode == "" {
		t.Skip("runs as the child of TestKilledAfterCommitDeliversAfterRestart")
	}
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.DB, cfg.SandboxDB = os.Getenv(childDB), os.Getenv(childSandbox)
	cfg.NoDemoData = true
	cfg.AdminPassword = "child-process-password"
	cfg.WebhookAllowPrivate = true
	cfg.WebhookTimeout = time.Second
	cfg.WebhookSchedule = "100ms,200ms,400ms,800ms,1s,1s,1s,1s,1s,1s"
	cfg.WebhookPoll = 100 * time.Millisecond
	ctx := context.Background()
	a, err := app.Open(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.StartWebhooks()
	env := a.Envs.Production()
	ectx := environment.NewContext(ctx, env)
	ectx = ent.NewContext(ectx, env.DB.Client)
	// Registering an endpoint for every event needs every read scope.
	ectx = auth.NewContext(ectx, &auth.Principal{Kind: auth.KindToken, Scopes: auth.AllScopes()})
	if mode == "drain" {
		select {} // deliver until killed
	}
	if _, _, err := a.Webhooks.Create(ectx, webhooks.EndpointInput{URL: ptr(os.Getenv(childURL))}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	// Wait until the parent's receiver knows the secret.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		h, err := a.Service.CreateHub(ectx, ent.CreateHubInput{Code: fmt.Sprintf("K%05d", i), Name: "kill test", Country: "NL"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("committed", h.ID) // after the commit: the parent may kill us now
	}
}

func ptr[T any](v T) *T { return &v }

// TestKilledAfterCommitDeliversAfterRestart: a server process commits
// events, some of them in flight to a slow receiver, and is killed with
// SIGKILL right after a commit. A new process over the same database then
// delivers every committed event: counted by webhook-id at the receiver.
func TestKilledAfterCommitDeliversAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	rc := newReceiver(t)
	rc.delay = 50 * time.Millisecond // keep attempts in flight at the kill
	prod, sandbox := apptest.DSN(t, "production"), apptest.DSN(t, "sandbox")
	var stdin io.WriteCloser
	start := func(mode string) (*exec.Cmd, *bufio.Scanner, *strings.Builder) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWebhookChildProcess$", "-test.timeout=2m")
		cmd.Env = append(os.Environ(), childMode+"="+mode, childDB+"="+prod, childSandbox+"="+sandbox, childURL+"="+rc.URL)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if stdin, err = cmd.StdinPipe(); err != nil {
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
		return cmd, bufio.NewScanner(out), logs
	}
	cmd, out, logs := start("write")
	deadline := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	reported := 0
	for out.Scan() {
		line := out.Text()
		if line == "ready" {
			// The receiver must know the secret: read it back from the database.
			rc.accept(endpointSecret(t, prod))
			if _, err := io.WriteString(stdin, "go\n"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasPrefix(line, "committed ") {
			reported++
			if reported == 60 {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
	}
	_ = cmd.Wait()
	if reported < 60 {
		t.Fatalf("the child reported %d commits before it ended:\n%s", reported, logs)
	}
	committed := hubEvents(t, prod)
	if len(committed) < reported {
		t.Fatalf("%d events in the database, %d reported committed", len(committed), reported)
	}
	before := rc.received(committed)
	t.Logf("killed after %d reported commits (%d in the database); %d delivered before the kill", reported, len(committed), before)

	drain, _, drainLogs := start("drain")
	defer func() { _ = drain.Process.Kill() }()
	deadline2 := time.Now().Add(60 * time.Second)
	for rc.received(committed) < len(committed) {
		if time.Now().After(deadline2) {
			t.Fatalf("after restart %d of %d committed events arrived:\n%s", rc.received(committed), len(committed), drainLogs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	dups := rc.duplicates()
	t.Logf("after restart every one of %d committed events arrived; %d arrived more than once (at least once: an attempt in flight at the kill is sent again)", len(committed), dups)
	if rc.badSig != 0 {
		t.Errorf("%d requests with a bad signature", rc.badSig)
	}
}

func openDB(t *testing.T, dsn string) *database.DB {
	t.Helper()
	db, err := database.Open(context.Background(), dsn, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func endpointSecret(t *testing.T, dsn string) string {
	t.Helper()
	ep, err := openDB(t, dsn).Client.WebhookEndpoint.Query().Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ep.Secret
}

func hubEvents(t *testing.T, dsn string) []string {
	t.Helper()
	evs, err := openDB(t, dsn).Client.Event.Query().All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Type == "hub.created" {
			out = append(out, string(e.ID))
		}
	}
	return out
}

// received counts the ids that arrived at least once.
func (r *receiver) received(ids []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, id := range ids {
		if r.got[id] > 0 {
			n++
		}
	}
	return n
}

// duplicates counts the deliveries beyond the first of each id.
func (r *receiver) duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.got {
		n += c - 1
	}
	return n
}
