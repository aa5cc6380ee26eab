package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// docExample is one fenced block of README.md or docs/*.md that the docs
// examples test runs.
type docExample struct {
	file string
	line int    // of the opening fence
	lang string // "sh" or "graphql"
	body string
}

// docExamples extracts the runnable examples (the convention, written for
// doc authors in README.md under "Examples in the docs"):
//   - a ```sh block that contains a curl command is a bash script;
//   - a ```graphql block is one GraphQL document.
//
// Any other block (```text, ```json, ```go, ```sh without curl) is not run.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	files = append([]string{"README.md"}, files...)
	var out []docExample
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		var cur *docExample
		var body []string
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "```") {
				if cur != nil {
					body = append(body, line)
				}
				continue
			}
			if cur != nil { // closing fence
				cur.body = strings.Join(body, "\n")
				if (cur.lang == "graphql" && !isSubscription(cur.body)) || (cur.lang == "sh" && hasCurl(cur.body)) {
					out = append(out, *cur)
				}
				cur, body = nil, nil
				continue
			}
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			lang := ""
			if len(info) > 0 {
				lang = info[0]
			}
			cur = &docExample{file: f, line: n, lang: lang}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func hasCurl(script string) bool {
	for _, l := range strings.Split(script, "\n") {
		for _, w := range strings.Fields(l) {
			if w == "curl" || strings.HasSuffix(w, "$(curl") {
				return true
			}
		}
	}
	return false
}

// Every request example in README.md and docs/*.md runs against a real
// server whose sandbox holds the demo data (as after a first `go run .`)
// and must succeed: curl scripts exit 0 (curl fails on any HTTP error
// status), GraphQL documents answer without errors.
func TestDocsExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is needed to run the docs' examples (apt-get install curl)")
		}
		t.Skip("curl not found")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	examples := docExamples(t)
	if len(examples) < 4 {
		t.Fatalf("found only %d examples: has the convention changed?", len(examples))
	}
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.NoDemoData = false
		c.DemoScale = app.Defaults().DemoScale
		c.CORSOrigins = "http://localhost:*"
		c.AdminEmail = app.Defaults().AdminEmail
	}})
	rewrite := strings.NewReplacer(
		"http://127.0.0.1:8080", s.URL, "http://localhost:8080", s.URL,
		"lsk_test_…", s.Keys[environment.Sandbox], "lsk_live_…", s.Keys[environment.Production],
	)
	prelude := "set -euo pipefail\n" +
		"curl() { command curl --silent --show-error --fail-with-body --max-time 30 \"$@\"; }\n"
	for _, ex := range examples {
		name := ex.file + ":" + strconv.Itoa(ex.line)
		switch ex.lang {
		case "sh":
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd := exec.CommandContext(ctx, "bash", "-c", prelude+rewrite.Replace(ex.body))
			cmd.Env = append(os.Environ(), "KEY="+s.Keys[environment.Sandbox], "LIVE_KEY="+s.Keys[environment.Production],
				"BASE="+s.URL, "LOGISTICS_ADMIN_PASSWORD="+s.AdminPassword)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n--- script\n%s\n--- output\n%s", name, err, ex.body, out)
			}
		case "graphql":
			r := s.Do(t, http.MethodPost, s.SandboxURL+"/graphql", map[string]string{"query": ex.body},
				http.Header{"Accept": {"application/graphql-response+json"}})
			var resp struct {
				Errors []json.RawMessage `json:"errors"`
			}
			if r.StatusCode != http.StatusOK || json.Unmarshal(r.Body, &resp) != nil || len(resp.Errors) > 0 {
				t.Errorf("%s: %d %s\n--- query\n%s", name, r.StatusCode, r.Body, ex.body)
			}
		}
	}
	t.Logf("ran %d examples", len(examples))
}

// isSubscription: a subscription document is a stream (docs/subscriptions.md;
// graph's subscription tests run those), not one POST answered at once.
func isSubscription(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return strings.HasPrefix(line, "subscription")
	}
	return false
}
