package console_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

// The console resets the sandbox only once "sandbox" is typed: the button
// stays disabled before, and the data is the demo data after.
func TestConsoleResetsTheSandbox(t *testing.T) {
	s := apptest.New(t)
	hub := s.Create(t, environment.Sandbox, "/v1/hubs", map[string]any{"code": "ZCR1", "name": "Before", "address": map[string]any{"country": "NL"}})
	ctx := browsertest.New(t, browsertest.WithTimeout(3*time.Minute))
	var disabledBefore, disabledAfter bool
	var done string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.WaitVisible("#reset-open", chromedp.ByQuery),
		chromedp.Click("#reset-open", chromedp.ByQuery),
		chromedp.WaitVisible("#reset-form", chromedp.ByQuery),
		chromedp.SetValue("#reset-scale", "0.001", chromedp.ByQuery),
		chromedp.SendKeys("#reset-confirm", "sandbo", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('reset-submit').disabled`, &disabledBefore),
		chromedp.SendKeys("#reset-confirm", "x", chromedp.ByQuery), // "sandbox"
		chromedp.Evaluate(`document.getElementById('reset-submit').disabled`, &disabledAfter),
		chromedp.Click("#reset-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#reset-done", chromedp.ByQuery),
		chromedp.Text("#reset-done", &done, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-sandbox-reset")
	if err != nil {
		t.Fatal(err)
	}
	if !disabledBefore || disabledAfter {
		t.Errorf("the reset button: disabled %v with \"sandbo\", %v with \"sandbox\"", disabledBefore, disabledAfter)
	}
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/hubs/"+hub, nil, nil); r.StatusCode != 404 {
		t.Errorf("the hub made before the reset: %d (the console said %q)", r.StatusCode, done)
	}
	if n := s.Env(environment.Sandbox).DB.Client.Hub.Query().CountX(s.Ctx(environment.Sandbox)); n == 0 {
		t.Errorf("no demo hubs after the console's reset (it said %q)", done)
	}
}
