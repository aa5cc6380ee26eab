package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/documents"
)

// documents register, list and retire work on the databases of a running
// server, which serves a registered document by hash at once.
func TestDocumentsCommand(t *testing.T) {
	s := apptest.New(t)
	getenv := func(string) string { return "" }
	dbFlags := []string{"--db", s.App.Config.DB, "--sandbox-db", s.App.Config.SandboxDB, "--base-url", s.URL, "--sandbox-url", s.SandboxURL}
	const doc = "query CliHubs { hubs { totalCount } }"
	h := documents.Hash(doc)
	b, _ := json.Marshal(map[string]string{h: doc})
	file := filepath.Join(t.TempDir(), "persisted-documents.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(append(args[:2:2], dbFlags...), args[2:]...), getenv, &stdout, &stderr)
		return stdout.String(), err
	}
	if out, err := cli("documents", "register", "--env", "sandbox", "--client", "spa", "--version", "1.2.3", file); err != nil || out != "1 created, 0 reactivated, 0 unchanged\n" {
		t.Fatalf("register: %q %v", out, err)
	}
	if r := s.Do(t, "POST", s.SandboxURL+"/graphql", map[string]any{"documentId": "sha256:" + h}, nil); r.StatusCode != 200 || !strings.Contains(string(r.Body), "totalCount") {
		t.Fatalf("by hash: %d %s", r.StatusCode, r.Body)
	}
	if out, err := cli("documents", "list", "--env", "sandbox"); err != nil || !strings.Contains(out, h) || !strings.Contains(out, "CliHubs") || !strings.Contains(out, "1.2.3") {
		t.Fatalf("list: %q %v", out, err)
	}
	if out, err := cli("documents", "list", "--env", "production"); err != nil || strings.Contains(out, h) {
		t.Fatalf("production list: %q %v", out, err)
	}
	if out, err := cli("documents", "retire", "--env", "sandbox", h); err != nil || !strings.Contains(out, "retired "+h) {
		t.Fatalf("retire: %q %v", out, err)
	}
	if out, err := cli("documents", "list", "--env", "sandbox", "--retired"); err != nil || !strings.Contains(out, "retired 20") {
		t.Fatalf("list --retired: %q %v", out, err)
	}
	bad, _ := json.Marshal(map[string]string{documents.Hash("other"): doc})
	if err := os.WriteFile(file, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := cli("documents", "register", "--env", "sandbox", "--client", "spa", file); err == nil || !strings.Contains(err.Error(), "not the key") {
		t.Fatalf("mismatch: %v", err)
	}
	if _, err := cli("documents", "register", "--env", "sandbox", file); err == nil {
		t.Fatal("register without --client accepted")
	}
}
