package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/internal/apptest"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestRunServesAndStops runs the real main path: flags and environment
// variables, both databases created and migrated, both base addresses logged,
// health endpoints answering, and a graceful stop when the context ends.
func TestRunServesAndStops(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	env := map[string]string{
		"LOGISTICS_DATA_DIR":     dir,
		"LOGISTICS_BASE_URL":     "http://" + addr,
		"LOGISTICS_SANDBOX_URL":  "http://" + addr + "/sandbox",
		"LOGISTICS_NO_DEMO_DATA": "1",
	}
	args := []string{"--addr", addr}
	if apptest.Postgres() {
		args = append(args, "--db", apptest.DSN(t, "production"), "--sandbox-db", apptest.DSN(t, "sandbox"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, io.Discard, &stderr) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become healthy:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, path := range []string{"/readyz", "/v1/status", "/sandbox/v1/status"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusInternalServerError || resp.StatusCode == http.StatusServiceUnavailable {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	logs := stderr.String()
	for _, want := range []string{"http://" + addr + "/graphql", "http://" + addr + "/sandbox/graphql"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log does not name %s:\n%s", want, logs)
		}
	}
	if !apptest.Postgres() {
		for _, f := range []string{"production.db", "sandbox.db"} {
			if _, err := os.Stat(dir + "/" + f); err != nil {
				t.Errorf("database file %s: %v", f, err)
			}
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop after cancel")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("no graceful stop logged:\n%s", stderr.String())
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--base-url", "ftp://x"}, "base URL"},
		{[]string{"--log-format", "xml"}, "log format"},
		{[]string{"--db", "same.db", "--sandbox-db", "same.db"}, "must differ"},
		{[]string{"bogus"}, "unknown command"},
	} {
		err := run(context.Background(), tc.args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%v) = %v, want %q", tc.args, err, tc.want)
		}
	}
}
