package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/eventlog"
	"logistics/internal/filter"
	"logistics/rest"
)

// TestOpenAPI checks that the document covers every route and filter field,
// and lints it with Redocly CLI when it is installed (CI installs it:
// npm i -g @redocly/cli@2.77.0). LOGISTICS_REQUIRE_LINT=1 makes a missing
// linter a failure instead of a skip.
func TestOpenAPI(t *testing.T) {
	s := apptest.New(t)
	resp := s.Do(t, "GET", s.URL+"/v1/openapi.json", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, resp.Body)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	resp.JSON(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q", doc.OpenAPI)
	}
	for _, p := range []string{"/v1/hubs", "/v1/hubs/{id}", "/v1/parts", "/v1/items", "/v1/orders", "/v1/orders/{id}/lines", "/v1/order-lines/{id}", "/v1/tracking-entries", "/v1/workflows", "/v1/events", "/v1/status"} {
		if doc.Paths[p] == nil {
			t.Errorf("path %s missing", p)
		}
	}
	body := string(resp.Body)
	for _, tab := range filter.Tables {
		for _, f := range tab.Fields {
			if !strings.Contains(body, `"name":"`+f.Name+`[]"`) {
				t.Errorf("%s: filter %s missing", tab.Resource, f.Name)
			}
		}
	}
	if !json.Valid(resp.Body) {
		t.Fatal("not JSON")
	}
	// The event catalog: one webhook per event type, with its body schema.
	var hooks struct {
		Webhooks map[string]map[string]map[string]any `json:"webhooks"`
	}
	resp.JSON(t, &hooks)
	for _, et := range eventlog.Catalog {
		if hooks.Webhooks[et.Name]["post"]["requestBody"] == nil {
			t.Errorf("webhook %s missing from the webhooks section", et.Name)
		}
	}
	if len(hooks.Webhooks) != len(eventlog.Catalog)+1 { // and webhook.test
		t.Errorf("%d webhooks, %d event types and webhook.test", len(hooks.Webhooks), len(eventlog.Catalog))
	}

	bin, err := exec.LookPath("redocly")
	if err != nil {
		if os.Getenv("LOGISTICS_REQUIRE_LINT") != "" {
			t.Fatal("redocly not installed: npm i -g @redocly/cli@2.77.0")
		}
		t.Skip("redocly not installed (npm i -g @redocly/cli@2.77.0): lint skipped")
	}
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, resp.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "lint", "--extends=recommended", "--format=stylish", path)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// The document's servers are the configured base addresses, whichever
// environment serves it.
func TestOpenAPIServersFollowBaseAddresses(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SandboxURL = c.BaseURL + "/try" }})
	if !strings.HasSuffix(s.SandboxURL, "/try") {
		t.Fatalf("sandbox at %s", s.SandboxURL)
	}
	want := fmt.Sprint([]rest.Server{{URL: s.URL, Description: "production"}, {URL: s.SandboxURL, Description: "sandbox"}})
	for _, base := range []string{s.URL, s.SandboxURL} {
		var doc struct {
			Servers []rest.Server `json:"servers"`
		}
		s.Do(t, http.MethodGet, base+"/v1/openapi.json", nil, apptest.Anonymous()).JSON(t, &doc)
		if got := fmt.Sprint(doc.Servers); got != want {
			t.Errorf("%s: servers %s, want %s", base, got, want)
		}
	}
}
