package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
)

// Signed out, the header shows no Profile or Log out (the nav is hidden),
// but links to both playgrounds. Opened as http://localhost:PORT (the
// server's base address says 127.0.0.1), the console signs in, and the
// signed-in user changes their password in the profile.
func TestConsoleHeaderSignedOutAndLocalhost(t *testing.T) {
	s := apptest.New(t)
	ctx := browsertest.New(t)
	u, _ := url.Parse(s.URL)
	local := "http://localhost:" + u.Port()

	var navShown, profileShown bool
	var prodLink, sbxLink string
	err := chromedp.Run(ctx,
		chromedp.Navigate(local+"/console"),
		chromedp.WaitVisible("#login-view", chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.getElementById('nav')).display !== 'none'`, &navShown),
		chromedp.Evaluate(`(() => { const r = document.getElementById('nav-profile').getBoundingClientRect(); return r.width > 0 && r.height > 0 })()`, &profileShown),
		chromedp.AttributeValue("#playground-link", "href", &prodLink, nil, chromedp.ByQuery),
		chromedp.AttributeValue("#sandbox-playground-link", "href", &sbxLink, nil, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-signed-out")
	if err != nil {
		t.Fatal(err)
	}
	if navShown || profileShown {
		t.Errorf("signed out, the header shows the nav (%v) / Profile (%v)", navShown, profileShown)
	}
	if prodLink != s.URL+"/playground" || sbxLink != s.SandboxURL+"/playground" {
		t.Errorf("playground links %q, %q", prodLink, sbxLink)
	}

	const next = "changed-in-the-browser"
	var whoami, done string
	err = chromedp.Run(ctx,
		chromedp.SendKeys("#email", s.AdminEmail, chromedp.ByQuery),
		chromedp.SendKeys("#password", s.AdminPassword, chromedp.ByQuery),
		chromedp.Click("#login-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#profile", chromedp.ByQuery),
		chromedp.WaitVisible("#nav-profile", chromedp.ByQuery),
		chromedp.Text("#whoami", &whoami, chromedp.ByQuery),
		chromedp.SendKeys("#current-password", s.AdminPassword, chromedp.ByQuery),
		chromedp.SendKeys("#new-password", next, chromedp.ByQuery),
		chromedp.Click("#password-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#password-done", chromedp.ByQuery),
		chromedp.Text("#password-done", &done, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-password-changed")
	if err != nil {
		t.Fatal(err)
	}
	if whoami != s.AdminEmail || !strings.Contains(done, "changed") {
		t.Errorf("whoami %q, status %q", whoami, done)
	}
	s.Session(t, s.AdminEmail, next)
}
