package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// TestHealthcheck: the subcommand the container image's HEALTHCHECK runs
// succeeds against a serving instance's /healthz and fails for an answer
// other than 200, a closed port and bad arguments.
func TestHealthcheck(t *testing.T) {
	srv := apptest.New(t)
	hc := func(getenv func(string) string, args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"healthcheck"}, args...), getenv, &out, &out)
		return out.String(), err
	}
	none := func(string) string { return "" }
	host := strings.TrimPrefix(srv.URL, "http://")
	port := host[strings.LastIndexByte(host, ':')+1:]

	if out, err := hc(none, "--url", srv.URL+"/healthz"); err != nil || !strings.Contains(out, "200") {
		t.Errorf("--url %s/healthz: %v %s", srv.URL, err, out)
	}
	// The listen address as the container sets it: a wildcard host is probed on loopback.
	if out, err := hc(func(k string) string {
		if k == "LOGISTICS_ADDR" {
			return "0.0.0.0:" + port
		}
		return ""
	}); err != nil {
		t.Errorf("LOGISTICS_ADDR=0.0.0.0:%s: %v %s", port, err, out)
	}
	if out, err := hc(none, "--addr", "[::]:"+port); err != nil {
		t.Errorf("--addr [::]:%s: %v %s", port, err, out)
	}

	unhealthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer unhealthy.Close()
	if _, err := hc(none, "--url", unhealthy.URL+"/healthz"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a 503 /healthz: %v, want a failure naming the 503", err)
	}
	closed := apptest.FreeAddr(t)
	if _, err := hc(none, "--addr", closed, "--timeout", "2s"); err == nil {
		t.Errorf("--addr %s, where nothing listens: no error", closed)
	}
	for _, args := range [][]string{{"--addr", "nonsense"}, {"--addr", "127.0.0.1:0"}, {"--url", "ftp://127.0.0.1/"}, {"--timeout", "0s"}, {"extra"}} {
		if _, err := hc(none, args...); err == nil {
			t.Errorf("healthcheck %q: no error", args)
		}
	}
}

// TestVersionFlag: --version is the version subcommand, and both print the
// version, commit and build date (TestReleaseBuild checks stamped values).
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, func(string) string { return "" }, &out, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for _, want := range []string{"logistics ", "\ncommit:  ", "\nbuilt:   ", "\ngo:      go"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q printed %q, without %q", args, out.String(), want)
			}
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version", "--json"}, func(string) string { return "" }, &out, &out); err != nil || !strings.HasPrefix(out.String(), `{"version":`) {
		t.Errorf("version --json: %v %s", err, out.String())
	}
}
