package playground_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

const (
	queryEditor     = `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror`
	variablesEditor = `document.querySelectorAll('.graphiql-editor-tool .CodeMirror')[0].CodeMirror`
	headersEditor   = `document.querySelectorAll('.graphiql-editor-tool .CodeMirror')[1].CodeMirror`
)

// TestAnalystPlaygroundInBrowser: an analyst signed in to the console opens
// the sandbox's playground on the real server (demo data). The header names
// the environment, its base address and the user; the example queries are
// open as tabs and one runs; the Examples panel lists them; "Share link"
// gives a link that opens the edited query and variables in another
// browser (a fresh profile, not signed in, which the header says, until an
// API key is typed under Headers).
func TestAnalystPlaygroundInBrowser(t *testing.T) {
	srv := demoServer(t)
	ctx := browsertest.New(t, browsertest.WithTimeout(90*time.Second), browsertest.WithWindowSize(1400, 900))

	var cookies []chromedp.Action
	for _, c := range strings.Split(srv.Session(t, srv.AdminEmail, srv.AdminPassword).Get("Cookie"), "; ") {
		name, value, _ := strings.Cut(c, "=")
		cookies = append(cookies, network.SetCookie(name, value).WithURL(srv.URL).WithHTTPOnly(name == "lsk_session"))
	}
	var header, tabs, result, panel string
	actions := append([]chromedp.Action{network.Enable()}, cookies...)
	actions = append(actions,
		chromedp.Navigate(srv.SandboxURL+"/playground"),
		chromedp.WaitVisible(`.pg-identity[data-kind="session"]`, chromedp.ByQuery),
		chromedp.Text(".pg-header", &header, chromedp.ByQuery),
		chromedp.WaitVisible(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Text(".graphiql-tabs", &tabs, chromedp.ByQuery),
		// The first tab (open orders by hub) is active: run it.
		chromedp.Poll(queryEditor+`.getValue().includes('OpenOrdersByHub')`, nil),
		chromedp.Click(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`(document.querySelector('.result-window .CodeMirror') || {}).CodeMirror?.getValue().includes('"totalCount"')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`, &result),
		// The Examples panel lists them too.
		chromedp.Click(`[aria-label="Show Examples"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.pg-examples`, chromedp.ByQuery),
		chromedp.Text(".pg-examples", &panel, chromedp.ByQuery),
	)
	err := chromedp.Run(ctx, actions...)
	browsertest.Screenshot(t, ctx, "analyst-playground")
	if err != nil {
		t.Fatalf("playground: %v (header %q)", err, header)
	}
	for _, want := range []string{"sandbox", srv.SandboxURL, srv.AdminEmail, "owner"} {
		if !strings.Contains(header, want) {
			t.Errorf("header %q lacks %q", header, want)
		}
	}
	for _, want := range []string{"OpenOrdersByHub", "AvailableStock", "TrackingExceptionsThisWeek", "TransitionsPerDay", "LiveTrackingExceptions"} {
		if !strings.Contains(tabs, want) {
			t.Errorf("tabs %q lack %s", tabs, want)
		}
	}
	if !strings.Contains(result, `"code": "`) || strings.Contains(result, `"errors"`) {
		t.Errorf("result of the first example: %.500s", result)
	}
	for _, want := range []string{"Open orders by hub", "Available stock per hub and part", "Tracking exceptions this week", "Transitions per day"} {
		if !strings.Contains(panel, want) {
			t.Errorf("Examples panel %q lacks %q", panel, want)
		}
	}

	// An example from the panel: its tab when open, else a new one.
	const exceptions = `.pg-example[data-example="3-tracking-exceptions"]`
	var before, after int
	var exVars string
	err = chromedp.Run(ctx,
		chromedp.Click(exceptions, chromedp.ByQuery),
		chromedp.Poll(queryEditor+`.getValue().includes('TrackingExceptionsThisWeek')`, nil),
		chromedp.Evaluate(`document.querySelectorAll('.graphiql-tab').length`, &before),
		chromedp.Click(`.graphiql-tab-active .graphiql-tab-close`, chromedp.ByQuery),
		chromedp.Poll(queryEditor+`.getValue().includes('TrackingExceptionsThisWeek') === false`, nil),
		chromedp.Click(exceptions, chromedp.ByQuery),
		chromedp.Poll(queryEditor+`.getValue().includes('TrackingExceptionsThisWeek')`, nil),
		chromedp.Poll(variablesEditor+`.getValue().includes('since')`, nil),
		chromedp.Evaluate(variablesEditor+`.getValue()`, &exVars),
		chromedp.Evaluate(`document.querySelectorAll('.graphiql-tab').length`, &after),
	)
	if err != nil {
		browsertest.Screenshot(t, ctx, "examples-panel")
		t.Fatalf("Examples panel: %v", err)
	}
	if before != 5 || after != 5 || !strings.Contains(exVars, `"since": "20`) {
		t.Errorf("tabs %d, then %d after closing one and opening it again (want 5 and 5); variables %q", before, after, exVars)
	}

	// Edit the query and its variables, then share.
	const edited = "query Shared($n: Int) {\n  hubs(first: $n) {\n    totalCount\n    edges { node { code } }\n  }\n}\n"
	const vars = `{"n": 2}`
	var link, address string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(queryEditor+`.setValue(`+jsString(edited)+`)`, nil),
		chromedp.Evaluate(variablesEditor+`.setValue(`+jsString(vars)+`)`, nil),
		chromedp.Click(".pg-share-button", chromedp.ByQuery),
		chromedp.WaitVisible(".pg-share-link", chromedp.ByQuery),
		chromedp.Value(".pg-share-link", &link, chromedp.ByQuery),
		// The address bar follows the tab too.
		chromedp.Poll(`window.location.hash.includes('Shared')`, nil),
		chromedp.Evaluate(`window.location.href`, &address),
	)
	if err != nil {
		browsertest.Screenshot(t, ctx, "share")
		t.Fatalf("share: %v", err)
	}
	if !strings.HasPrefix(link, srv.SandboxURL+"/playground#query=") || strings.Contains(link, "Bearer") || strings.Contains(link, "headers") {
		t.Fatalf("share link %q", link)
	}
	if address != link {
		t.Errorf("address %q, share link %q", address, link)
	}

	// Another browser, not signed in, opens the link.
	other := browsertest.New(t, browsertest.WithTimeout(60*time.Second), browsertest.WithWindowSize(1400, 900))
	var gotQuery, gotVars, hint string
	err = chromedp.Run(other,
		chromedp.Navigate(link),
		chromedp.WaitVisible(".graphiql-query-editor .CodeMirror", chromedp.ByQuery),
		chromedp.Poll(queryEditor+`.getValue().includes('Shared')`, nil),
		chromedp.Evaluate(queryEditor+`.getValue()`, &gotQuery),
		chromedp.Evaluate(variablesEditor+`.getValue()`, &gotVars),
		chromedp.WaitVisible(`.pg-identity[data-kind="none"]`, chromedp.ByQuery),
		chromedp.Text(".pg-identity", &hint, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, other, "shared-link")
	if err != nil {
		t.Fatalf("shared link: %v", err)
	}
	if gotQuery != edited || gotVars != vars {
		t.Errorf("restored query %q variables %q, want %q and %q", gotQuery, gotVars, edited, vars)
	}
	if !strings.Contains(hint, "Not signed in") || !strings.Contains(hint, "sign in to the console") {
		t.Errorf("identity when signed out: %q", hint)
	}

	// An API key typed under Headers: the header follows it.
	key := srv.Keys[environment.Sandbox]
	var identity string
	err = chromedp.Run(other,
		chromedp.Evaluate(headersEditor+`.setValue(`+jsString(`{"Authorization": "Bearer `+key+`"}`)+`)`, nil),
		chromedp.WaitVisible(`.pg-identity[data-kind="api_key"]`, chromedp.ByQuery),
		chromedp.Text(".pg-identity", &identity, chromedp.ByQuery),
	)
	if err != nil {
		browsertest.Screenshot(t, other, "api-key")
		t.Fatalf("API key identity: %v", err)
	}
	if !strings.Contains(identity, "apptest sandbox") || !strings.Contains(identity, key[:len("lsk_test_")+6]) || strings.Contains(identity, key) {
		t.Errorf("identity with an API key: %q", identity)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}
