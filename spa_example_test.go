package main

import (
	"context"
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

	"github.com/chromedp/chromedp"

	"logistics/ent/order"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

// spaDist returns the built example app (examples/spa/dist), building it
// with `npm ci && npm run build` when it is missing or older than its
// sources. Without npm the test is skipped locally and fails in CI.
func spaDist(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("examples", "spa")
	index := filepath.Join(dir, "dist", "index.html")
	built, err := os.Stat(index)
	stale := err != nil
	if !stale {
		for _, src := range []string{"index.html", "package-lock.json", "vite.config.js", "src/main.js", "src/style.css"} {
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
// a plain message when the session ends. The same build served on an origin
// that is not allowed says which setting to change.
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
	}})
	sbx := s.App.Envs.Get(environment.Sandbox).DB.Client
	ctx := browsertest.New(t, browsertest.WithTimeout(90*time.Second))
	bg := context.Background()
	openBefore := sbx.Order.Query().Where(order.Status("open")).CountX(bg)
	if openBefore == 0 {
		t.Fatal("the demo data has no open orders")
	}

	page := spa.URL + "/?api=" + url.QueryEscape(s.SandboxURL)
	var total, row string
	err := chromedp.Run(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible("#signin", chromedp.ByQuery),
		chromedp.SendKeys("#email", s.AdminEmail, chromedp.ByQuery),
		chromedp.SendKeys("#password", s.AdminPassword, chromedp.ByQuery),
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
