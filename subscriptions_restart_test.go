package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// subscriptionsExample returns examples/subscriptions with its npm packages
// installed (`npm ci` when node_modules is missing or older than the lock
// file). Without node the test is skipped locally and fails in CI.
func subscriptionsExample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("examples", "subscriptions")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed to run examples/subscriptions (apt-get install nodejs npm)", tool)
			}
			t.Skipf("%s not found: cannot run examples/subscriptions", tool)
		}
	}
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mods, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !lock.ModTime().After(mods.ModTime()) {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return dir
}

// nodeFollower is one run of examples/subscriptions/restart-client.mjs: the
// documented resume loop of one transport, printing what it receives.
type nodeFollower struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}

	mu      sync.Mutex
	seqs    []int64
	resumes []string // the codes the loop resubscribed on
	fatal   string
	other   []string // lines that are not JSON
	stderr  bytes.Buffer
}

func startFollower(t *testing.T, dir, transport, url, key string, after int64) *nodeFollower {
	t.Helper()
	f := &nodeFollower{name: transport, done: make(chan struct{})}
	f.cmd = exec.Command("node", "restart-client.mjs", transport, url, key, fmt.Sprint(after))
	f.cmd.Dir = dir
	f.cmd.Stderr = &f.stderr
	out, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if f.stdin, err = f.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(f.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m struct {
				Seq    *int64
				Resume *string
				Fatal  *string
			}
			f.mu.Lock()
			switch err := json.Unmarshal(sc.Bytes(), &m); {
			case err != nil:
				f.other = append(f.other, sc.Text())
			case m.Seq != nil:
				f.seqs = append(f.seqs, *m.Seq)
			case m.Resume != nil:
				f.resumes = append(f.resumes, *m.Resume)
			case m.Fatal != nil:
				f.fatal = *m.Fatal
			}
			f.mu.Unlock()
		}
		_ = f.cmd.Wait()
	}()
	t.Cleanup(func() {
		f.stdin.Close()
		select {
		case <-f.done:
		case <-time.After(10 * time.Second):
			_ = f.cmd.Process.Kill()
			<-f.done
		}
		if t.Failed() {
			f.mu.Lock()
			t.Logf("%s client: resumed on %v, fatal %q, other output %q, stderr:\n%s", f.name, f.resumes, f.fatal, f.other, f.stderr.String())
			f.mu.Unlock()
		}
	})
	return f
}

func (f *nodeFollower) received() ([]int64, []string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.seqs...), append([]string(nil), f.resumes...), f.fatal
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// TestSubscriptionsSurviveRestart runs the documented resume loops
// (examples/subscriptions/follow-ws.mjs with graphql-ws, follow-sse.mjs with
// graphql-sse, both included in docs/subscriptions.md) against the real
// binary, which is stopped with SIGTERM in mid-stream and started again on
// the same address and data directory, while a writer keeps creating orders
// (through the instance while it answers, through a second instance over the
// same database while it does not). Every order event committed after the
// clients' starting sequence reaches each client exactly once, in order, and
// each client saw the restart as a SHUTTING_DOWN ending (an error message on
// the WebSocket, a last next with errors then complete on SSE): the server
// said why, rather than closing alone. Before, graphql-ws resubscribed by
// itself with its first after: (duplicates) and the documented graphql-sse
// pattern never resubscribed (every later event missed).
func TestSubscriptionsSurviveRestart(t *testing.T) {
	dir := subscriptionsExample(t)
	bin := apptest.BuildBinary(t)
	srv := apptest.New(t)
	env := environment.Production
	key := srv.Keys[env]
	hub := srv.Create(t, env, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	db := srv.Env(env).DB.Client
	ctx := context.Background()
	lastSeq := func() int64 {
		e, err := db.Event.Query().Where(event.SequenceNotNil()).Order(ent.Desc(event.FieldSequence)).First(ctx)
		if ent.IsNotFound(err) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return int64(*e.Sequence)
	}
	start := lastSeq()

	addr, dataDir := apptest.FreeAddr(t), t.TempDir()
	first := apptest.StartChild(t, srv, bin, apptest.ChildOptions{Addr: addr, DataDir: dataDir})
	url := first.URL + "/graphql"
	followers := []*nodeFollower{
		startFollower(t, dir, "ws", "ws"+strings.TrimPrefix(url, "http"), key, start),
		startFollower(t, dir, "sse", url, key, start),
	}

	// The writer: an order every 40 ms, through the child while it answers,
	// else through the in-process instance; it stops at the end of the test.
	var written, fallback atomic.Int64
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	client := &http.Client{Timeout: 10 * time.Second}
	create := func(base string) bool {
		body, _ := json.Marshal(map[string]any{"hub_id": hub, "customer_ref": fmt.Sprintf("RESTART-%d", written.Load())})
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/orders", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusCreated
	}
	go func() {
		defer close(writerDone)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if create("http://" + addr) {
				written.Add(1)
			} else if create(srv.URL) {
				written.Add(1)
				fallback.Add(1)
			}
		}
	}()
	stopWriter := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-writerDone
	}
	t.Cleanup(stopWriter)

	receivedAtLeast := func(n int) func() bool {
		return func() bool {
			for _, f := range followers {
				if seqs, _, _ := f.received(); len(seqs) < n {
					return false
				}
			}
			return true
		}
	}
	if !waitFor(60*time.Second, receivedAtLeast(10)) {
		t.Fatalf("the clients did not receive 10 events before the restart (%d written)", written.Load())
	}
	first.Stop(t) // SIGTERM in mid-stream
	time.Sleep(1500 * time.Millisecond)
	before := int(written.Load())
	second := apptest.StartChild(t, srv, bin, apptest.ChildOptions{Addr: addr, DataDir: dataDir})
	if !waitFor(60*time.Second, receivedAtLeast(before+20)) {
		t.Fatalf("the clients did not receive 20 events after the restart (%d written)", written.Load())
	}
	stopWriter()

	var want []int64
	for _, e := range db.Event.Query().Where(event.SequenceGT(int(start)), event.TypeHasPrefix("order.")).
		Order(ent.Asc(event.FieldSequence)).AllX(ctx) {
		want = append(want, int64(*e.Sequence))
	}
	// The log is the truth: every acknowledged order is in it (one event
	// each); one whose answer the restart cut off may be there too.
	if n := int64(len(want)); n < written.Load() {
		t.Fatalf("%d order events in the log, %d orders acknowledged", n, written.Load())
	} else if n > written.Load() {
		t.Logf("%d order events in the log, %d orders acknowledged", n, written.Load())
	}
	if fallback.Load() == 0 {
		t.Fatal("no order was written while the instance was down: the restart test did not cover that gap")
	}
	for _, f := range followers {
		ok := waitFor(30*time.Second, func() bool { s, _, _ := f.received(); return len(s) >= len(want) })
		got, resumes, fatal := f.received()
		if fatal != "" {
			t.Errorf("%s: the loop stopped: %s", f.name, fatal)
		}
		if !ok || !equalSeqs(got, want) {
			lost, dup, disorder := compareSeqs(got, want)
			t.Errorf("%s: received %d of %d events: %d lost, %d duplicated, %d out of order", f.name, len(got), len(want), lost, dup, disorder)
		}
		if !contains(resumes, "SHUTTING_DOWN") {
			t.Errorf("%s: the loop resubscribed on %v; want a SHUTTING_DOWN ending at the restart", f.name, resumes)
		}
		t.Logf("%s: %d events received of %d written (%d while the instance was down), resubscribed on %v", f.name, len(got), len(want), fallback.Load(), resumes)
	}
	// A key that does not work ends the loops (no retrying forever).
	bad := "lsk_live_" + strings.Repeat("0", 40)
	for _, f := range []*nodeFollower{
		startFollower(t, dir, "ws", "ws"+strings.TrimPrefix(url, "http"), bad, start),
		startFollower(t, dir, "sse", url, bad, start),
	} {
		if !waitFor(20*time.Second, func() bool { _, _, fatal := f.received(); return fatal != "" }) {
			_, resumes, _ := f.received()
			t.Errorf("%s with a bad key: the loop did not stop (resubscribed on %v)", f.name, resumes)
		} else {
			_, _, fatal := f.received()
			t.Logf("%s with a bad key: stopped on %.200s", f.name, fatal)
		}
	}
	for _, c := range []*apptest.Child{first, second} {
		if strings.Contains(c.Logs(), "panic") {
			t.Errorf("the server logged a panic:\n%s", c.Logs())
		}
	}
}

func equalSeqs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareSeqs counts the sequences of want missing from got, those got has
// more than once, and the places where got goes backwards.
func compareSeqs(got, want []int64) (lost, dup, disorder int) {
	seen := map[int64]int{}
	for i, s := range got {
		seen[s]++
		if i > 0 && s <= got[i-1] {
			disorder++
		}
	}
	for _, s := range want {
		if seen[s] == 0 {
			lost++
		}
	}
	for _, n := range seen {
		if n > 1 {
			dup += n - 1
		}
	}
	return lost, dup, disorder
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// docs/subscriptions.md shows the resume loops that
// TestSubscriptionsSurviveRestart runs: each block after a
// "<!-- examples/subscriptions/… -->" line is that file, verbatim.
func TestSubscriptionDocsShowExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "subscriptions.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	lines := strings.Split(string(doc), "\n")
	for i, l := range lines {
		name, ok := strings.CutPrefix(l, "<!-- examples/subscriptions/")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, " -->")
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("docs/subscriptions.md:%d: the marker of %s is not followed by a code block", i+1, name)
		}
		var block []string
		for _, b := range lines[i+2:] {
			if strings.HasPrefix(b, "```") {
				break
			}
			block = append(block, b)
		}
		want, err := os.ReadFile(filepath.Join("examples", "subscriptions", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(block, "\n") + "\n"; got != string(want) {
			t.Errorf("docs/subscriptions.md:%d: the block differs from examples/subscriptions/%s: copy the file into the page", i+1, name)
		}
		shown[name] = true
	}
	for _, name := range []string{"follow-ws.mjs", "follow-sse.mjs"} {
		if !shown[name] {
			t.Errorf("docs/subscriptions.md does not show examples/subscriptions/%s", name)
		}
	}
}
