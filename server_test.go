package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
)

// TestRunServesAndStops runs the real main path: flags and environment
// variables, both databases created and migrated, both base addresses logged,
// health endpoints answering, and a graceful stop when the context ends.
func TestRunServesAndStops(t *testing.T) {
	addr := apptest.FreeAddr(t)
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
	var stderr apptest.LockedBuffer
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

// Without --base-url/--sandbox-url the addresses follow the listener, port
// 0 included: the log names the real port's console, playgrounds and
// OpenAPI document, those answer, and the console signs in from localhost
// as from 127.0.0.1.
func TestRunDerivesAddressesFromAddr(t *testing.T) {
	args := []string{"--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--no-demo-data"}
	if apptest.Postgres() {
		args = append(args, "--db", apptest.DSN(t, "production"), "--sandbox-db", apptest.DSN(t, "sandbox"))
	}
	env := map[string]string{"LOGISTICS_ADMIN_PASSWORD": "derived-addr-password"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr apptest.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, io.Discard, &stderr) }()
	defer func() {
		cancel()
		<-done
	}()

	consoleLine := regexp.MustCompile(`console=(http://127\.0\.0\.1:(\d+)/console)\b`)
	var m []string
	for deadline := time.Now().Add(60 * time.Second); m == nil; time.Sleep(50 * time.Millisecond) {
		m = consoleLine.FindStringSubmatch(stderr.String())
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no console address logged:\n%s", stderr.String())
		}
	}
	port := m[2]
	if port == "0" {
		t.Fatal("the log advertises port 0")
	}
	base := "http://127.0.0.1:" + port
	logs := stderr.String()
	for _, want := range []string{base + "/playground", base + "/sandbox/playground", base + "/v1/openapi.json", base + "/sandbox/v1/openapi.json"} {
		if !strings.Contains(logs, want+" ") && !strings.Contains(logs, want+"\n") {
			t.Errorf("log does not name %s:\n%s", want, logs)
		}
	}
	for _, u := range []string{m[1], base + "/playground", base + "/sandbox/playground", base + "/v1/openapi.json", base + "/sandbox/"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", u, resp.StatusCode)
		}
	}
	for _, origin := range []string{base, "http://localhost:" + port} {
		req, _ := http.NewRequest(http.MethodPost, strings.Replace(m[1], "127.0.0.1", "localhost", 1)+"/api/login",
			strings.NewReader(`{"email":"admin@localhost","password":"derived-addr-password"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("console sign-in from %s: %d %s", origin, resp.StatusCode, body)
		}
	}
}
