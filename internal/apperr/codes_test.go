package apperr_test

import (
	"html/template"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"logistics/internal/apperr"
	"logistics/internal/apptest"
)

// codeInSource finds the codes errors are given in hand-written Go.
var codeInSource = regexp.MustCompile(`(?:WithCode|Conflict|Unauthenticated|Forbidden)\("([a-z_]+)"|Code: +"([a-z_]+)"|Code = "([a-z_]+)"|kinds\[\w+\] = |\{http\.Status\w+, "[A-Z_]+", "([a-z_]+)"`)

// TestEveryCodeDocumented: every code the source gives an error has a page.
func TestEveryCodeDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "ent" || d.Name() == "generated" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeInSource.FindAllStringSubmatch(string(b), -1) {
			for _, c := range m[1:] {
				if c != "" {
					found[c] = path
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 30 {
		t.Fatalf("found only %d codes: the pattern no longer matches the source", len(found))
	}
	for code, path := range found {
		if !slices.ContainsFunc(apperr.Codes, func(c apperr.CodeDoc) bool { return c.Code == code }) {
			t.Errorf("code %q (%s) has no entry in apperr.Codes", code, path)
		}
	}
}

// TestProblemTypesResolve fetches every code's type URI from a running
// server, and the type of a real error response.
func TestProblemTypesResolve(t *testing.T) {
	s := apptest.New(t)
	base, _ := url.Parse(s.URL + "/v1/hubs")
	fetch := func(typ string) (int, string) {
		ref, err := url.Parse(typ)
		if err != nil {
			t.Fatalf("type %q: %v", typ, err)
		}
		resp, err := s.Client.Get(base.ResolveReference(ref).String())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: Content-Type %s", typ, resp.Header.Get("Content-Type"))
		}
		return resp.StatusCode, string(b)
	}
	for _, c := range apperr.Codes {
		status, body := fetch(apperr.TypeBase + c.Code)
		if status != http.StatusOK || !strings.Contains(body, "<code>"+c.Code+"</code>") || !strings.Contains(body, template.HTMLEscapeString(c.Meaning)) {
			t.Errorf("%s: %d %.200s", c.Code, status, body)
		}
	}
	if status, body := fetch(apperr.TypeBase); status != http.StatusOK || strings.Count(body, "<dt ") != len(apperr.Codes) {
		t.Errorf("the list: %d, %d entries", status, strings.Count(body, "<dt "))
	}
	if status, _ := fetch(apperr.TypeBase + "no_such_code"); status != http.StatusNotFound {
		t.Errorf("unknown code: %d", status)
	}
	var p struct {
		Type string `json:"type"`
		Code string `json:"code"`
	}
	s.Do(t, "GET", s.URL+"/v1/hubs?kind=castle", nil, nil).JSON(t, &p)
	if status, body := fetch(p.Type); p.Code != "invalid_parameter" || status != http.StatusOK || !strings.Contains(body, "<code>invalid_parameter</code>") {
		t.Errorf("type %q of a real problem: %d", p.Type, status)
	}
	// The sandbox's problems resolve the same way.
	s.Do(t, "GET", s.SandboxURL+"/v1/nope", nil, nil).JSON(t, &p)
	if status, _ := fetch(p.Type); p.Code != "not_found" || status != http.StatusOK {
		t.Errorf("sandbox type %q: %d", p.Type, status)
	}
}
