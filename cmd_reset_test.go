package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// reset empties the sandbox of a running server and loads demo data again;
// it refuses production and a reset without the confirmation.
func TestResetCommand(t *testing.T) {
	s := apptest.New(t)
	getenv := func(string) string { return "" }
	dbFlags := []string{"--db", s.App.Config.DB, "--sandbox-db", s.App.Config.SandboxDB, "--base-url", s.URL, "--sandbox-url", s.SandboxURL}
	cli := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(append([]string{"reset"}, dbFlags...), args...), getenv, &stdout, &stderr)
		return stdout.String(), err
	}
	hub := s.Create(t, environment.Sandbox, "/v1/hubs", map[string]any{"code": "ZCL1", "name": "Before", "address": map[string]any{"country": "NL"}})
	prodHub := s.Create(t, environment.Production, "/v1/hubs", map[string]any{"code": "ZCL1", "name": "Production", "address": map[string]any{"country": "NL"}})
	for _, args := range [][]string{
		{"--env", "production", "--confirm", "sandbox"},
		{"--env", "sandbox"},
		{"--env", "sandbox", "--confirm", "yes"},
		{"--confirm", "sandbox"},
	} {
		if out, err := cli(args...); err == nil {
			t.Errorf("reset %v: %q, want an error", args, out)
		}
	}
	if out, err := cli("--env", "production", "--confirm", "sandbox"); err == nil || !strings.Contains(err.Error(), "production cannot be reset") {
		t.Errorf("reset of production: %q %v", out, err)
	}
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/hubs/"+hub, nil, nil); r.StatusCode != 200 {
		t.Fatalf("a refused reset erased the hub: %d", r.StatusCode)
	}
	out, err := cli("--env", "sandbox", "--confirm", "sandbox", "--scale", "0.001", "--seed", "3")
	if err != nil || !strings.Contains(out, "erased 1 hubs") || !strings.Contains(out, "seed 3") {
		t.Fatalf("reset: %q %v", out, err)
	}
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/hubs/"+hub, nil, nil); r.StatusCode != 404 {
		t.Errorf("the hub made before the reset: %d", r.StatusCode)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/hubs/"+prodHub, nil, nil); r.StatusCode != 200 {
		t.Errorf("production's hub after a sandbox reset: %d", r.StatusCode)
	}
}
