package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// TestTypeScriptClient generates TypeScript types from the served OpenAPI
// document with openapi-typescript and compiles examples/typescript-client
// (openapi-fetch) with tsc --strict: a list's data must be its JSON page,
// the members a representation always has not optional, a transition's
// body take revision, an export be text — all without a cast, or tsc
// fails. Then it runs the client against the server. The npm packages are
// pinned in the example's package-lock.json (npm ci); without npm the test
// is skipped locally and fails in CI.
func TestTypeScriptClient(t *testing.T) {
	dir := filepath.Join("examples", "typescript-client")
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npm is needed for examples/typescript-client (apt-get install npm)")
		}
		t.Skip("npm not found: cannot build examples/typescript-client")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	lock, lockErr := os.Stat(filepath.Join(dir, "package-lock.json"))
	if lockErr != nil {
		t.Fatal(lockErr)
	}
	if err != nil || lock.ModTime().After(installed.ModTime()) {
		run("npm", "ci", "--no-audit", "--no-fund")
	}

	s := apptest.New(t)
	for _, code := range []string{"AMS1", "RTM2", "BER3"} { // two pages of two
		s.Create(t, environment.Production, "/v1/hubs", map[string]any{"code": code, "name": code, "address": map[string]any{"country": "NL"}})
	}
	part := s.Create(t, environment.Production, "/v1/parts", map[string]any{"sku": "BOLT-M8", "part_name": "Bolt"})
	s.Create(t, environment.Production, "/v1/items", map[string]any{"part_id": part, "hub": "AMS1", "quantity": 10})

	doc := s.Do(t, http.MethodGet, s.URL+"/v1/openapi.json", nil, apptest.Anonymous())
	if doc.StatusCode != http.StatusOK {
		t.Fatalf("openapi.json: %d", doc.StatusCode)
	}
	docFile := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(docFile, doc.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(filepath.Join(dir, "dist"))
	run(filepath.Join("node_modules", ".bin", "openapi-typescript"), docFile, "-o", filepath.Join("src", "generated", "schema.d.ts"))
	run(filepath.Join("node_modules", ".bin", "tsc"), "-p", ".") // strict: see tsconfig.json

	out := run("node", filepath.Join("dist", "main.js"), s.URL, s.Keys[environment.Production])
	var got struct {
		Codes     []string       `json:"codes"`
		Free      float64        `json:"free"`
		Status    string         `json:"status"`
		Revision  int            `json:"revision"`
		Lines     []float64      `json:"lines"`
		Events    int            `json:"events"`
		ByStatus  map[string]int `json:"byStatus"`
		CSVHeader string         `json:"csvHeader"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the client printed %q: %v", out, err)
	}
	slices.Sort(got.Codes)
	if !slices.Equal(got.Codes, []string{"AMS1", "BER3", "RTM2"}) || got.Free != 10 || got.Status != "open" || got.Revision != 2 ||
		!slices.Equal(got.Lines, []float64{2}) || got.Events < 6 || got.ByStatus["available"] != 1 || !strings.HasPrefix(got.CSVHeader, "id,code,") {
		t.Errorf("the client read %+v", got)
	}
}
