package playground_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"logistics/internal/browsertest"
	"logistics/internal/playground"
)

// introspection is the answer to GraphiQL's introspection query for the
// schema `type Query { hello: String }`.
const introspection = `{"data":{"__schema":{
 "description":null,
 "queryType":{"name":"Query"},"mutationType":null,"subscriptionType":null,
 "types":[
  {"kind":"OBJECT","name":"Query","description":null,"specifiedByURL":null,
   "fields":[{"name":"hello","description":"Says hello.","args":[],
     "type":{"kind":"SCALAR","name":"String","ofType":null},
     "isDeprecated":false,"deprecationReason":null}],
   "inputFields":null,"interfaces":[],"enumValues":null,"possibleTypes":null},
  {"kind":"SCALAR","name":"String","description":null,"specifiedByURL":null,
   "fields":null,"inputFields":null,"interfaces":null,"enumValues":null,"possibleTypes":null},
  {"kind":"SCALAR","name":"Boolean","description":null,"specifiedByURL":null,
   "fields":null,"inputFields":null,"interfaces":null,"enumValues":null,"possibleTypes":null}
 ],
 "directives":[]}}}`

type recorded struct {
	method string
	header http.Header
	body   struct {
		Query         string         `json:"query"`
		OperationName string         `json:"operationName"`
		Variables     map[string]any `json:"variables"`
	}
}

// fakeGraphQL records the requests it gets and answers every query other
// than the introspection one with {"data":{"hello":"world"}}.
type fakeGraphQL struct {
	mu   sync.Mutex
	reqs []recorded
}

func (f *fakeGraphQL) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rec recorded
	rec.method, rec.header = r.Method, r.Header.Clone()
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &rec.body)
	f.mu.Lock()
	f.reqs = append(f.reqs, rec)
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/graphql-response+json")
	if strings.Contains(rec.body.Query, "__schema") {
		_, _ = io.WriteString(w, introspection)
		return
	}
	_, _ = io.WriteString(w, `{"data":{"hello":"world"}}`)
}

func (f *fakeGraphQL) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func TestPlaygroundInBrowser(t *testing.T) {
	fake := &fakeGraphQL{}
	var (
		mu       sync.Mutex
		stray    []string // requests to paths the page must not ask for
		requests []string // every URL the browser asked for
	)
	mux := http.NewServeMux()
	pg := playground.Handler("/playground", "/graphql", playground.Config{Title: "Logistics API"})
	mux.Handle("/playground", pg)
	mux.Handle("/playground/", pg)
	mux.Handle("/graphql", fake)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stray = append(stray, r.Method+" "+r.URL.String())
		mu.Unlock()
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := browsertest.New(t)

	chromedp.ListenTarget(ctx, func(ev any) {
		if ev, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, ev.Request.URL)
			mu.Unlock()
		}
	})

	const csrf = "csrf-token-from-cookie/+="
	query := "query Hello {\n  hello\n}\n"
	target := srv.URL + "/playground?" + url.Values{
		"query":   {query},
		"headers": {`{"Authorization": "Bearer t0ken"}`},
	}.Encode()

	var response string
	var violations []string
	err := chromedp.Run(ctx,
		network.Enable(),
		// Cookies as the API's login would leave them: a session cookie
		// (HttpOnly) and the CSRF cookie the fetcher copies into a header.
		network.SetCookie("lsk_session", "session-1").WithURL(srv.URL).WithHTTPOnly(true),
		network.SetCookie("lsk_csrf", url.QueryEscape(csrf)).WithURL(srv.URL),
		// Record Content-Security-Policy violations (scripts injected
		// through the DevTools protocol are not subject to the CSP).
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(`
				window.__cspViolations = [];
				document.addEventListener('securitypolicyviolation', e =>
					window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));
			`).Do(ctx)
			return err
		}),
		chromedp.Navigate(target),
		chromedp.WaitVisible(".graphiql-container .graphiql-query-editor .CodeMirror", chromedp.ByQuery),
		chromedp.WaitVisible(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue() !== ''`, nil),
		chromedp.Click(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`(document.querySelector('.result-window .CodeMirror') || {}).CodeMirror?.getValue().includes('world')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`, &response),
		// Dialogs and the doc explorer (Radix UI may add <style> elements).
		chromedp.Click(`[aria-label="Open settings dialog"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.graphiql-dialog`, chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotPresent(`.graphiql-dialog`, chromedp.ByQuery),
		chromedp.Click(`.graphiql-sidebar-section button`, chromedp.ByQuery),
		chromedp.WaitVisible(`.graphiql-doc-explorer`, chromedp.ByQuery),
		chromedp.Evaluate(`window.__cspViolations`, &violations),
	)
	browsertest.Screenshot(t, ctx, "playground")
	if err != nil {
		t.Fatalf("playground: %v (GraphQL requests: %d)", err, len(fake.requests()))
	}

	if !strings.Contains(response, `"hello": "world"`) {
		t.Errorf("result pane shows %q", response)
	}
	if len(violations) > 0 {
		t.Errorf("Content-Security-Policy violations: %q", violations)
	}

	var sawIntrospection, sawQuery bool
	for _, r := range fake.requests() {
		if r.method != http.MethodPost {
			t.Errorf("GraphQL request with method %s", r.method)
		}
		if got := r.header.Get("X-CSRF-Token"); got != csrf {
			t.Errorf("X-CSRF-Token %q, want the lsk_csrf cookie %q", got, csrf)
		}
		if got := r.header.Get("Accept"); got != "application/graphql-response+json, application/json" {
			t.Errorf("Accept %q", got)
		}
		if got := r.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
		if c, err := (&http.Request{Header: r.header}).Cookie("lsk_session"); err != nil || c.Value != "session-1" {
			t.Errorf("session cookie not sent (credentials: same-origin): %q", r.header.Get("Cookie"))
		}
		if got := r.header.Get("Authorization"); got != "Bearer t0ken" {
			t.Errorf("Authorization %q from the headers editor, want Bearer t0ken", got)
		}
		switch {
		case strings.Contains(r.body.Query, "__schema"):
			sawIntrospection = true
		case r.body.OperationName == "PlaygroundViewer": // the header asks who is signed in
		case r.body.Query == query:
			sawQuery = r.body.OperationName == "Hello"
			if !sawQuery {
				t.Errorf("operationName %q, want Hello", r.body.OperationName)
			}
		default:
			t.Errorf("unexpected query %q", r.body.Query)
		}
	}
	if !sawIntrospection || !sawQuery {
		t.Errorf("introspection seen %v, query seen %v", sawIntrospection, sawQuery)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(stray) > 0 {
		t.Errorf("page asked for unknown paths: %q", stray)
	}
	for _, u := range requests {
		if !strings.HasPrefix(u, srv.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("browser requested %s, outside the test server", u)
		}
	}
	if len(requests) < 3 {
		t.Errorf("saw only %d requests: %q", len(requests), requests)
	}
}

// TestPlaygroundDefaultQuery: a first visit opens the example queries as
// tabs, the first one active.
func TestPlaygroundDefaultQuery(t *testing.T) {
	fake := &fakeGraphQL{}
	mux := http.NewServeMux()
	pg := playground.Handler("/sandbox/playground", "/sandbox/graphql", playground.Config{Title: "Sandbox <API>"})
	mux.Handle("/sandbox/playground", pg)
	mux.Handle("/sandbox/playground/", pg)
	mux.Handle("/sandbox/graphql", fake)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := browsertest.New(t)
	var title, query string
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+"/sandbox/playground/"),
		chromedp.WaitVisible(".graphiql-query-editor .CodeMirror", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue() !== ''`, nil),
		chromedp.Evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`, &query),
		chromedp.Title(&title),
	)
	browsertest.Screenshot(t, ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if title != "Sandbox <API>" {
		t.Errorf("title %q", title)
	}
	if !strings.Contains(query, "query OpenOrdersByHub") {
		t.Errorf("first tab %q", query)
	}
	// Only the introspection query and the header's viewer query ran,
	// without a CSRF header since there is no lsk_csrf cookie.
	reqs := fake.requests()
	if len(reqs) == 0 {
		t.Fatal("no introspection request to /sandbox/graphql")
	}
	for _, r := range reqs {
		if !strings.Contains(r.body.Query, "__schema") && r.body.OperationName != "PlaygroundViewer" {
			t.Errorf("unexpected query %q", r.body.Query)
		}
		if _, ok := r.header["X-Csrf-Token"]; ok {
			t.Errorf("X-CSRF-Token sent without a lsk_csrf cookie: %q", r.header.Get("X-CSRF-Token"))
		}
	}
}
