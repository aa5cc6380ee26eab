package service_test

import (
	"context"
	"logistics/internal/environment"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"logistics/ent/item"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// TestConcurrentAllocationTwoProcesses is the concurrency proof with two real
// server processes (the built binary, each with its own connection pool)
// sharing one PostgreSQL database, on 127.0.0.1. PostgreSQL only.
func TestConcurrentAllocationTwoProcesses(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("needs " + apptest.PostgresEnv)
	}
	f := newFixture(t)
	bin := filepath.Join(t.TempDir(), "logistics")
	build := exec.Command("go", "build", "-o", bin, "logistics")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var servers []*apptest.Server
	for range 2 {
		servers = append(servers, startProcess(t, bin, f.srv.App.Config.DB, f.srv.App.Config.SandboxDB, f.srv.Keys))
	}
	for _, q := range []string{"15", "15", "10"} {
		f.stock(t, f.parts[0], f.hub, q, item.StatusAvailable, nil)
	}
	f.stock(t, f.parts[1], f.hub, "30", item.StatusAvailable, nil)
	ids := make([]resourceid.ID, 50)
	moves := make([]move, len(ids))
	for i := range ids {
		o := f.order(t, "",
			service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(3)},
			service.NewLine{PartID: f.parts[1].ID, Quantity: decimal.MustParse("0.5")})
		f.move(t, o.ID, "submit")
		ids[i], moves[i] = o.ID, move{o.ID, "allocate"}
	}
	ok, refused := runConcurrently(t, servers, moves)
	if ok != 13 || refused != 37 {
		t.Errorf("%d allocated and %d refused, want 13 and 37", ok, refused)
	}
	if n := checkStock(t, f, ids); n != ok {
		t.Errorf("%d allocated in the database, %d answered OK", n, ok)
	}
}

// startProcess runs the binary on a free loopback port over the given
// databases and waits (at most a minute) until it answers /healthz.
func startProcess(t *testing.T, bin, db, sandboxDB string, keys map[environment.Name]string) *apptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	var logs strings.Builder
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--sandbox-db", sandboxDB,
		"--base-url", base, "--sandbox-url", base+"/sandbox", "--data-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "LOGISTICS_NO_DEMO_DATA=1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server %s log:\n%s", addr, logs.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("server on %s did not start: %s", addr, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return &apptest.Server{URL: base, SandboxURL: base + "/sandbox", Client: &http.Client{Timeout: 2 * time.Minute}, Header: http.Header{}, Keys: keys}
}
