package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"logistics/ent/order"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

// spaManifest is the trusted-documents manifest graphql-codegen writes from
// the app's operations during its build (examples/spa/codegen.ts).
const spaManifest = "src/gql/persisted-documents.json"

// spaDist returns the built example app (examples/spa/dist), building it
// with `npm ci && npm run build` (graphql-codegen, then Vite) when it is
// missing or older than its sources. Without npm the test is skipped
// locally and fails in CI.
func spaDist(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("examples", "spa")
	index := filepath.Join(dir, "dist", "index.html")
	built, err := os.Stat(index)
	stale := err != nil
	if !stale {
		// The manifest is generated with the build: without it the build is
		// an older one's.
		if _, err := os.Stat(filepath.Join(dir, spaManifest)); err != nil {
			stale = true
		}
		for _, src := range []string{"index.html", "package.json", "package-lock.json", "vite.config.js", "codegen.ts", "src/main.js", "src/style.css",
			"../../internal/contract/testdata/schema.graphql"} {
			if fi, err := os.Stat(filepath.Join(dir, src)); err == nil && fi.ModTime().After(built.ModTime()) {
				stale = true
			}
		}
	}
	if !stale {
		return filepath.Join(dir, "dist")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npm is needed to build examples/spa (apt-get install npm)")
		}
		t.Skip("npm not found: cannot build examples/spa")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund"}, {"run", "build"}} {
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	return filepath.Join(dir, "dist")
}

// The example SPA (examples/spa: Vite + urql from npm), served on a second
// origin, used in Chromium as its user would: sign in through the session
// API, list the open orders of the sandbox's demo data through GraphQL with
// the session cookie, create an order and submit it (CSRF token), and read
// a plain message when the session ends. The sandbox runs only trusted
// documents for sessions (enforce): the manifest graphql-codegen generated
// from the app's operations is registered through REST first, the app sends
// hashes alone, and a document of its own sent with the same session is
// refused. The same build served on an origin that is not allowed says
// which setting to change.
func TestSPAOnAnotherOrigin(t *testing.T) {
	dist := spaDist(t)
	files := http.FileServer(http.Dir(dist))
	spa := httptest.NewServer(files)
	defer spa.Close()
	refused := httptest.NewServer(files)
	defer refused.Close()

	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.CORSOrigins = spa.URL
		c.NoDemoData = false
		c.DemoScale = 0.002
		c.SandboxTrustedSessions = "enforce"
	}})
	sbx := s.App.Envs.Get(environment.Sandbox).DB.Client
	bg := context.Background()
	openBefore := sbx.Order.Query().Where(order.Status("open")).CountX(bg)
	if openBefore == 0 {
		t.Fatal("the demo data has no open orders")
	}

	// The deploy step: register the generated manifest with a key that
	// holds documents:write and nothing else.
	manifest, err := os.ReadFile(filepath.Join("examples", "spa", spaManifest))
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]string
	if err := json.Unmarshal(manifest, &entries); err != nil || len(entries) != 3 {
		t.Fatalf("the generated manifest holds %d documents (%v), want the app's 3 operations", len(entries), err)
	}
	secret, _, err := s.App.Auth.Store.CreateToken(s.Ctx(environment.Production), auth.TokenInput{Name: "spa deploy", Environment: environment.Sandbox, Scopes: []string{"documents:write"}})
	if err != nil {
		t.Fatal(err)
	}
	reg := s.Do(t, http.MethodPost, s.SandboxURL+"/v1/trusted-documents?client_name=logistics-spa&client_version=1.0.0", manifest,
		http.Header{"Authorization": {"Bearer " + secret}, "Content-Type": {"application/json"}})
	if reg.StatusCode != http.StatusCreated {
		t.Fatalf("registering the manifest: %d %s", reg.StatusCode, reg.Body)
	}
	// A member: owners and admins hold graphql:adhoc, which enforce lets
	// send anything.
	const email, password = "member@spa.example", "member-password-1"
	if _, err := s.App.Auth.Store.CreateUser(s.Ctx(environment.Production), email, password, "member"); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t, browsertest.WithTimeout(90*time.Second))

	page := spa.URL + "/?api=" + url.QueryEscape(s.SandboxURL)
	var total, row string
	err = chromedp.Run(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible("#signin", chromedp.ByQuery),
		chromedp.SendKeys("#email", email, chromedp.ByQuery),
		chromedp.SendKeys("#password", password, chromedp.ByQuery),
		chromedp.Click("#signin button[type=submit]", chromedp.ByQuery),
		chromedp.WaitVisible("#app", chromedp.ByQuery),
		chromedp.WaitVisible("#orders tbody tr", chromedp.ByQuery),
		chromedp.Text("#total", &total, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("hub").options.length > 0`, nil),
		chromedp.SendKeys("#ref", "SPA-E2E-1", chromedp.ByQuery),
		chromedp.Click("#create button[type=submit]", chromedp.ByQuery),
		chromedp.Poll(`[...document.querySelectorAll('#orders tbody tr')].some(r => r.textContent.includes('SPA-E2E-1'))`, nil),
		chromedp.Text(`#orders tbody tr:first-child`, &row, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "spa-orders")
	if err != nil {
		var m string
		_ = chromedp.Run(ctx, chromedp.Text("#message", &m, chromedp.ByQuery))
		t.Fatalf("%v (message on the page: %q; orders SPA-E2E-1 in the database: %d)", err, m,
			sbx.Order.Query().Where(order.CustomerRef("SPA-E2E-1")).CountX(bg))
	}
	if want := strconv.Itoa(openBefore) + " open orders"; strings.TrimSpace(total) != want {
		t.Errorf("total %q, want %q", total, want)
	}
	if !strings.Contains(row, "SPA-E2E-1") || !strings.Contains(row, "open") {
		t.Errorf("new order's row %q", row)
	}
	created := sbx.Order.Query().Where(order.CustomerRef("SPA-E2E-1")).OnlyX(bg)
	if created.Status != "open" {
		t.Fatalf("the created order is %s, want open (submitted)", created.Status)
	}
	// A document that is not in the manifest, sent from the app's page with
	// the same session cookie and CSRF token, is refused before it runs.
	var adhoc string
	err = chromedp.Run(ctx, chromedp.Evaluate(`(async () => {
		const api = new URLSearchParams(location.search).get("api");
		const session = await (await fetch(api + "/console/api/session", { credentials: "include" })).json();
		const res = await fetch(api + "/graphql", { method: "POST", credentials: "include",
			headers: { "Content-Type": "application/json", "Accept": "application/graphql-response+json", "X-CSRF-Token": session.csrfToken },
			body: JSON.stringify({ query: "{ hubs(first: 1) { totalCount } }" }) });
		return res.status + " " + await res.text();
	})()`, &adhoc, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(adhoc, "400 ") || !strings.Contains(adhoc, "TRUSTED_DOCUMENT_REQUIRED") {
		t.Errorf("an ad hoc document with the app's session: %s", adhoc)
	}

	// The session ends on the server (signed out elsewhere, expired): the
	// next action says so and offers the sign-in form; nothing is created.
	if _, err := s.App.Envs.Production().DB.Client.Session.Delete().Exec(bg); err != nil {
		t.Fatal(err)
	}
	var msg string
	err = chromedp.Run(ctx,
		chromedp.SendKeys("#ref", "SPA-E2E-2", chromedp.ByQuery),
		chromedp.Click("#create button[type=submit]", chromedp.ByQuery),
		chromedp.WaitVisible("#signin", chromedp.ByQuery),
		chromedp.Text("#message", &msg, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "spa-session-ended")
	if err != nil {
		t.Fatal(err)
	}
	if msg != "Your session has ended. Please sign in again." {
		t.Errorf("message after the session ended: %q", msg)
	}
	if n := sbx.Order.Query().Where(order.CustomerRef("SPA-E2E-2")).CountX(bg); n != 0 {
		t.Errorf("an order was created without a session: %d", n)
	}

	// Served from an origin not in --cors-origins, the app cannot read any
	// answer and tells its user which setting to change.
	err = chromedp.Run(ctx,
		chromedp.Navigate(refused.URL+"/?api="+url.QueryEscape(s.SandboxURL)),
		chromedp.WaitVisible("#message", chromedp.ByQuery),
		chromedp.Text("#message", &msg, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "spa-refused-origin")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "--cors-origins") || !strings.Contains(msg, refused.URL) {
		t.Errorf("message on a refused origin: %q", msg)
	}
}
