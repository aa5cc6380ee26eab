package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	var tags struct {
		Tags []struct{ Name, Description string } `json:"tags"`
	}
	resp.JSON(t, &tags)
	for _, tag := range tags.Tags {
		if tag.Description == "" {
			t.Errorf("tag %s has no description (tagDescriptions)", tag.Name)
		}
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

// The headers of counts and of the read-replica router are in the document
// as components, on the operations that honour them: Prefer on every
// authenticated read (with count= on the lists that count, read= on all),
// X-Read-After on every such read and on every write's successful answers,
// Preference-Applied on the counting lists' pages.
func TestOpenAPIPreferAndReadAfter(t *testing.T) {
	s := apptest.New(t)
	var doc struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Parameters map[string]struct {
				Name        string `json:"name"`
				In          string `json:"in"`
				Description string `json:"description"`
			} `json:"parameters"`
			Headers map[string]map[string]any `json:"headers"`
		} `json:"components"`
	}
	s.Do(t, http.MethodGet, s.URL+rest.PublicPath, nil, apptest.Anonymous()).JSON(t, &doc)

	comps := doc.Components.Parameters
	for name, want := range map[string][]string{
		"PreferList": {"count=exact", "count=bounded", "count=planned", "count=estimated", "read=replica", "read=primary"},
		"PreferRead": {"read=replica", "read=primary"},
		"ReadAfter":  {"X-Read-After"},
	} {
		p, ok := comps[name]
		if !ok || p.In != "header" {
			t.Errorf("components.parameters.%s: %+v", name, p)
			continue
		}
		for _, w := range want {
			if !strings.Contains(p.Description, w) {
				t.Errorf("components.parameters.%s does not name %s", name, w)
			}
		}
	}
	if strings.Contains(comps["PreferRead"].Description, "count=") {
		t.Error("PreferRead names count=, which only the lists honour")
	}
	for _, h := range []string{"PreferenceApplied", "ReadAfter"} {
		if doc.Components.Headers[h] == nil {
			t.Errorf("components.headers.%s missing", h)
		}
	}

	refs := func(v any) []string {
		var out []string
		list, _ := v.([]any)
		for _, p := range list {
			if m, ok := p.(map[string]any); ok {
				if r, ok := m["$ref"].(string); ok {
					out = append(out, strings.TrimPrefix(r, "#/components/parameters/"))
				} else if m["name"] == "Prefer" || m["name"] == "X-Read-After" {
					out = append(out, "inline "+m["name"].(string))
				}
			}
		}
		return out
	}
	headerRef := func(resp any, name string) string {
		m, _ := resp.(map[string]any)
		h, _ := m["headers"].(map[string]any)
		r, _ := h[name].(map[string]any)
		s, _ := r["$ref"].(string)
		return strings.TrimPrefix(s, "#/components/headers/")
	}
	lists := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			name := strings.ToUpper(method) + " " + path
			responses, _ := op["responses"].(map[string]any)
			if method != "get" {
				for status, resp := range responses {
					if strings.HasPrefix(status, "2") && headerRef(resp, "X-Read-After") != "ReadAfter" {
						t.Errorf("%s %s: no X-Read-After header", name, status)
					}
				}
				continue
			}
			got := refs(op["parameters"])
			if path == rest.PublicPath {
				if len(got) > 0 {
					t.Errorf("%s (served outside the router): %v", name, got)
				}
				continue
			}
			ok200, _ := responses["200"].(map[string]any)
			counts := strings.Contains(fmt.Sprint(ok200["content"]), "total_count")
			prefer := "PreferRead"
			if counts {
				prefer = "PreferList"
				lists++
				if headerRef(ok200, "Preference-Applied") != "PreferenceApplied" {
					t.Errorf("%s counts but documents no Preference-Applied", name)
				}
			}
			if !slices.Equal(got, []string{prefer, "ReadAfter"}) {
				t.Errorf("%s: Prefer and X-Read-After parameters %v, want [%s ReadAfter]", name, got, prefer)
			}
		}
	}
	if lists < len(filter.Tables)-1 {
		t.Errorf("%d counting lists, want one per table but the event log's (%d)", lists, len(filter.Tables)-1)
	}
}
