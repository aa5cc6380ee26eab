package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// doc authors in docs/development.md, "Examples in the docs are run"):
//   - a ```sh block that contains a curl command is a bash script;
//   - a ```graphql block is one GraphQL document (a subscription runs over
//     Server-Sent Events);
//   - a ```http block is request lines, "GET /v1/…", each sent to the
//     sandbox.
//
// Any other block (```text, ```console, ```json, ```go, ```sh without curl)
// is not run; one that holds a request anyway (a curl command, request lines,
// ```gql) fails the test, so that an example cannot escape it by its fence.
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
				switch {
				case cur.lang == "graphql", cur.lang == "http", cur.lang == "sh" && hasCurl(cur.body):
					out = append(out, *cur)
				case cur.lang == "text", cur.lang == "console", cur.lang == "sh":
					// not a request, or deliberately not run
				case hasCurl(cur.body):
					t.Errorf("%s:%d: a curl example fenced as ```%s is not run: fence it as ```sh (or ```text if it must not run)", f, cur.line, cur.lang)
				case cur.lang == "gql", cur.lang == "graphqls":
					t.Errorf("%s:%d: a GraphQL example fenced as ```%s is not run: fence it as ```graphql", f, cur.line, cur.lang)
				case isRequestLines(cur.body):
					t.Errorf("%s:%d: request lines fenced as ```%s are not run: fence them as ```http", f, cur.line, cur.lang)
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

// requestLine is one line of a ```http block: a method and a path under
// the base address.
var requestLine = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE) /\S*$`)

func isRequestLines(body string) bool {
	n := 0
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if !requestLine.MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
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
		case "http":
			for _, l := range strings.Split(ex.body, "\n") {
				if l = strings.TrimSpace(l); l == "" {
					continue
				}
				method, path, _ := strings.Cut(l, " ")
				if method != http.MethodGet || !strings.HasPrefix(path, "/") {
					t.Errorf("%s: %q: a ```http block runs GET request lines only; write other requests as curl in a ```sh block", name, l)
					continue
				}
				// A long poll's wait would only idle here (the sandbox's
				// log is still): shortened, like the address is rewritten.
				path = longPollWait.ReplaceAllString(path, "${1}1s")
				if r := s.Do(t, method, s.SandboxURL+path, nil, nil); r.StatusCode/100 != 2 {
					t.Errorf("%s: %s: %d %s", name, l, r.StatusCode, r.Body)
				}
			}
		case "graphql":
			if isSubscription(ex.body) {
				if err := runSubscription(s.SandboxURL+"/graphql", s.Keys[environment.Sandbox], ex.body); err != nil {
					t.Errorf("%s: %v\n--- subscription\n%s", name, err, ex.body)
				}
				continue
			}
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
	// The subscription check can fail: a document the schema refuses.
	if err := runSubscription(s.SandboxURL+"/graphql", s.Keys[environment.Sandbox], `subscription { orderChanged(after: 0) { sequence bogus } }`); err == nil {
		t.Error("runSubscription accepted an invalid subscription")
	}
	t.Logf("ran %d examples", len(examples))
}

var longPollWait = regexp.MustCompile(`([?&]wait=)[^&]*`)

// runSubscription opens a subscription document over Server-Sent Events
// (docs/subscriptions.md) with after: 0 when it declares $after, and reads
// it for a moment. A document the server refuses (validation, scopes,
// arguments) answers at once with an error — a non-200 status or an
// `event: next` whose data has "errors" — so a stream still open without
// one after that moment is a running subscription; events it delivers in
// the meantime must carry no errors either.
func runSubscription(url, key, doc string) error {
	payload := map[string]any{"query": doc}
	if strings.Contains(doc, "$after") {
		payload["variables"] = map[string]any{"after": 0}
	}
	b, _ := json.Marshal(payload)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data:") && strings.Contains(line, `"errors"`) {
			return errors.New(line)
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil // still streaming at the deadline, or complete without errors
}

// isSubscription: a subscription document is a stream, opened over
// Server-Sent Events by runSubscription rather than POSTed for one answer.
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
