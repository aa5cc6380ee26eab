package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/sqlite"
)

// Each base address answers a browser with a page of links and an API
// client with JSON (status and the same links); /v1/openapi.json needs no
// key; /docs/ serves the documentation.
func TestLandingPages(t *testing.T) {
	s := apptest.New(t)
	for _, c := range []struct{ url, env, base string }{
		{s.URL + "/", "production", s.URL},
		{s.SandboxURL, "sandbox", s.SandboxURL},
		{s.SandboxURL + "/", "sandbox", s.SandboxURL},
	} {
		r := s.Do(t, http.MethodGet, c.url, nil, http.Header{"Authorization": {""}, "Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}})
		page := string(r.Body)
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s as a browser: %d %s %s", c.url, r.StatusCode, r.Header.Get("Content-Type"), page)
		}
		for _, link := range []string{s.URL + "/console", c.base + "/playground", c.base + "/v1/openapi.json", c.base + "/docs/"} {
			if !strings.Contains(page, `href="`+link+`"`) {
				t.Errorf("%s: no link to %s:\n%s", c.url, link, page)
			}
		}
		r = s.Do(t, http.MethodGet, c.url, nil, http.Header{"Authorization": {""}, "Accept": {"application/json"}})
		var doc struct {
			Status, Environment string
			Links               map[string]string
		}
		if r.StatusCode != http.StatusOK || json.Unmarshal(r.Body, &doc) != nil {
			t.Fatalf("%s as JSON: %d %s", c.url, r.StatusCode, r.Body)
		}
		if doc.Status != "ok" || doc.Environment != c.env || doc.Links["openapi"] != c.base+"/v1/openapi.json" ||
			doc.Links["graphql_schema"] != c.base+"/graphql/schema.graphql" ||
			doc.Links["console"] != s.URL+"/console" || doc.Links["playground"] != c.base+"/playground" {
			t.Errorf("%s: %+v", c.url, doc)
		}
	}
	for _, u := range []string{s.URL + "/v1/openapi.json", s.SandboxURL + "/v1/openapi.json"} {
		if r := s.Do(t, http.MethodGet, u, nil, apptest.Anonymous()); r.StatusCode != http.StatusOK || !strings.Contains(string(r.Body), `"openapi":"3.1.0"`) {
			t.Errorf("%s without a key: %d", u, r.StatusCode)
		}
	}
	for _, u := range []string{s.URL + "/graphql/schema.graphql", s.SandboxURL + "/graphql/schema.graphql"} {
		if r := s.Do(t, http.MethodGet, u, nil, apptest.Anonymous()); r.StatusCode != http.StatusOK || !strings.Contains(string(r.Body), "directive @listSize(") {
			t.Errorf("%s without a key: %d", u, r.StatusCode)
		}
	}
	if r := s.Do(t, http.MethodGet, s.URL+"/v1/status", nil, apptest.Anonymous()); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("/v1/status without a key: %d (only the OpenAPI document and the SDL are public)", r.StatusCode)
	}
	r := s.Do(t, http.MethodGet, s.SandboxURL+"/docs/auth.md", nil, apptest.Anonymous())
	if r.StatusCode != http.StatusOK || !strings.Contains(string(r.Body), "# ") {
		t.Errorf("docs/auth.md: %d", r.StatusCode)
	}
	if r := s.Do(t, http.MethodGet, s.URL+"/docs/..%2fgo.mod", nil, apptest.Anonymous()); r.StatusCode != http.StatusNotFound {
		t.Errorf("docs outside docs/: %d", r.StatusCode)
	}
}

// The service opens its SQLite databases under --sqlite-memory's bound.
func TestServiceBoundsSQLiteMemory(t *testing.T) {
	if os.Getenv("LOGISTICS_TEST_POSTGRES") != "" {
		t.Skip("the bound is SQLite's")
	}
	apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SQLiteMemory = 24 }})
	if got := sqlite.ReadMemory().Limit; got != 24<<20 {
		t.Fatalf("SQLite's soft heap limit is %d bytes, want 24 MiB", got)
	}
}
