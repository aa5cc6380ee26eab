package apptest

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BuildBinary builds the service's binary into a temporary directory, for
// tests that run it as a child process (crashes, restarts).
func BuildBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "logistics")
	if out, err := exec.Command("go", "build", "-o", bin, "logistics").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// FreeAddr returns a loopback address with a port free now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ChildOptions adjust a child server.
type ChildOptions struct {
	Addr    string   // listen address (default: a free loopback port); a restart passes the same
	DataDir string   // --data-dir (default: a fresh directory); a restart passes the same
	Env     []string // more environment variables (test-only faults)
}

// Child is a server process of the real binary over the databases of an
// in-process Server (which made the API keys and the fixtures).
type Child struct {
	URL  string // base address (production)
	Addr string

	cmd    *exec.Cmd
	logs   *LockedBuffer
	exited chan struct{}
}

// LockedBuffer is a bytes.Buffer that a server's goroutines write and a
// test reads at the same time: the logs of a server under test.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// StartChild runs bin serve over srv's databases and waits (at most a
// minute) until it answers /healthz. It is stopped (SIGINT, then SIGKILL
// after 30 s) when the test ends, and its log is shown if the test failed.
func StartChild(t testing.TB, srv *Server, bin string, opt ChildOptions) *Child {
	t.Helper()
	addr := opt.Addr
	if addr == "" {
		addr = FreeAddr(t)
	}
	dataDir := opt.DataDir
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	base := "http://" + addr
	cfg := srv.App.Config
	c := &Child{URL: base, Addr: addr, logs: &LockedBuffer{}, exited: make(chan struct{})}
	c.cmd = exec.Command(bin, "serve", "--addr", addr, "--db", cfg.DB, "--sandbox-db", cfg.SandboxDB,
		"--base-url", base, "--sandbox-url", base+"/sandbox", "--data-dir", dataDir, "--rate-limit", "0")
	c.cmd.Env = append(append(os.Environ(), "LOGISTICS_NO_DEMO_DATA=1"), opt.Env...)
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Signal(os.Interrupt)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		if t.Failed() {
			t.Logf("server %s log:\n%s", addr, c.logs.String())
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c
			}
		}
		select {
		case <-c.exited:
			t.Fatalf("server on %s exited: %s", addr, c.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server on %s did not start: %s", addr, c.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Logs returns what the child wrote so far.
func (c *Child) Logs() string { return c.logs.String() }

// WaitLog waits (at most a minute) for a line of the child's log.
func (c *Child) WaitLog(t testing.TB, s string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(c.logs.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", s, c.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (c *Child) Kill(t testing.TB) {
	t.Helper()
	c.signal(t, syscall.SIGKILL)
}

// Stop sends SIGTERM, as an orchestrator stopping the instance does, and
// waits (at most 30 s) for the process to exit.
func (c *Child) Stop(t testing.TB) {
	t.Helper()
	c.signal(t, syscall.SIGTERM)
}

func (c *Child) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the process did not exit on %v", sig)
	}
}
