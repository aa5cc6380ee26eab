package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

// signIn fills the console's sign-in form.
func signIn(s *apptest.Server) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(s.URL + "/console"),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
		chromedp.SendKeys("#email", s.AdminEmail, chromedp.ByQuery),
		chromedp.SendKeys("#password", s.AdminPassword, chromedp.ByQuery),
		chromedp.Click("#login-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#profile", chromedp.ByQuery),
	}
}

// The whole life of a key, as a user lives it: sign in, profile, API
// tokens, +, create, copy the secret once, use it, reload (gone), revoke.
func TestConsoleCreatesAndRevokesToken(t *testing.T) {
	s := apptest.New(t)
	ctx := browsertest.New(t)

	var secret, whoami string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.Text("#whoami", &whoami, chromedp.ByQuery),
		chromedp.Click("#nav-profile", chromedp.ByQuery),
		chromedp.WaitVisible("#api-tokens", chromedp.ByQuery),
		chromedp.Click("#new-token", chromedp.ByQuery),
		chromedp.WaitVisible("#token-form", chromedp.ByQuery),
		chromedp.SendKeys("#token-name", "e2e", chromedp.ByQuery),
		chromedp.SetValue("#token-env", "production", chromedp.ByQuery),
		chromedp.Click("#scope-all", chromedp.ByQuery),
		chromedp.Click("#token-create", chromedp.ByQuery),
		chromedp.WaitVisible("#token-secret", chromedp.ByQuery),
		chromedp.Text("#secret-value", &secret, chromedp.ByQuery),
		chromedp.WaitVisible(`#tokens tbody tr .revoke`, chromedp.ByQuery),
		chromedp.Click("#copy-secret", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('copy-status').textContent !== ''`, nil),
	)
	browsertest.Screenshot(t, ctx, "console-token-created")
	if err != nil {
		t.Fatal(err)
	}
	if whoami != s.AdminEmail {
		t.Errorf("signed in as %q", whoami)
	}
	secret = strings.TrimSpace(secret)
	if !strings.HasPrefix(secret, "lsk_live_") {
		t.Fatalf("secret on the page: %q", secret)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(secret)); r.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/status with the new key: %d %s", r.StatusCode, r.Body)
	}

	// After a reload the secret is nowhere on the page, only its prefix.
	var html, row string
	err = chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible("#profile", chromedp.ByQuery),
		chromedp.WaitVisible(`#tokens tbody tr:first-child .revoke`, chromedp.ByQuery),
		chromedp.OuterHTML("html", &html, chromedp.ByQuery),
		chromedp.Text(`#tokens tbody tr:first-child`, &row, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, secret) || strings.Contains(html, secret[len(secret)-12:]) {
		t.Fatal("the secret is still on the page after a reload")
	}
	for _, want := range []string{"e2e", secret[:15], "production", "all scopes", "never"} {
		if !strings.Contains(row, want) {
			t.Errorf("token row %q lacks %q", row, want)
		}
	}

	// Revoke (accepting the confirmation), then the key is refused.
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`window.confirm = () => true`, nil),
		chromedp.Click(`#tokens tbody tr:first-child .revoke`, chromedp.ByQuery),
		chromedp.WaitVisible(`#tokens tbody tr.revoked:first-child`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-token-revoked")
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(secret)); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("revoked key: %d", r.StatusCode)
	}

	// Log out: back to the sign-in form, and the session no longer works.
	err = chromedp.Run(ctx,
		chromedp.Click("#logout", chromedp.ByQuery),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
		chromedp.Reload(),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
}

func TestConsoleWrongPassword(t *testing.T) {
	s := apptest.New(t)
	ctx := browsertest.New(t)
	var msg string
	err := chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/console"),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
		chromedp.SendKeys("#email", s.AdminEmail, chromedp.ByQuery),
		chromedp.SendKeys("#password", "not-the-password", chromedp.ByQuery),
		chromedp.Click("#login-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#login-error", chromedp.ByQuery),
		chromedp.Text("#login-error", &msg, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if msg != "invalid email or password" {
		t.Errorf("message %q", msg)
	}
}

// The sandbox's /console sends the browser to the one console.
func TestSandboxConsoleRedirects(t *testing.T) {
	s := apptest.New(t)
	ctx := browsertest.New(t)
	var loc string
	err := chromedp.Run(ctx,
		chromedp.Navigate(s.SandboxURL+"/console"),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
		chromedp.Location(&loc),
	)
	if err != nil {
		t.Fatal(err)
	}
	if loc != s.URL+"/console" {
		t.Errorf("at %s", loc)
	}
}

// A query from the playground, authenticated by the console's session
// cookie alone (no Authorization header), sees data.
func TestPlaygroundWithSessionCookie(t *testing.T) {
	s := apptest.New(t)
	s.MustGraphQL(t, environment.Production, `mutation { createHub(input: {code: "RTM2", name: "Rotterdam", kind: port,
		addressLine1: "Kade 1", city: "Rotterdam", postalCode: "3011AA", country: "NL", timezone: "Europe/Amsterdam"}) { id } }`, nil, nil)
	ctx := browsertest.New(t)
	query := "query Hubs {\n  hubs { totalCount edges { node { code name } } }\n}\n"
	var result string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.Navigate(s.URL+"/playground?"+url.Values{"query": {query}}.Encode()),
		chromedp.WaitVisible(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue().includes('Hubs')`, nil),
		chromedp.Click(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`(document.querySelector('.result-window .CodeMirror') || {}).CodeMirror?.getValue().includes('RTM2')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`, &result),
	)
	browsertest.Screenshot(t, ctx, "playground-session")
	if err != nil {
		t.Fatalf("%v (result %q)", err, result)
	}
	if !strings.Contains(result, `"totalCount": 1`) || strings.Contains(result, "errors") {
		t.Errorf("result %q", result)
	}
}
