package playground_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"logistics/internal/browsertest"
)

// TestPlaygroundReturningAnalyst: an analyst opens the playground, runs the
// first example, and comes back later in the same browser (the same
// localStorage): the playground opens with the same tabs — each example
// once, no duplicate — the active one with its variables, and running it
// works. The same after looking at another example, coming back at the
// address the tab left in the address bar (a reload, a restored session)
// and at the bare page.
func TestPlaygroundReturningAnalyst(t *testing.T) {
	srv := demoServer(t)
	ctx := browsertest.New(t, browsertest.WithTimeout(150*time.Second), browsertest.WithWindowSize(1400, 900))
	var cookies []chromedp.Action
	for _, c := range strings.Split(srv.Session(t, srv.AdminEmail, srv.AdminPassword).Get("Cookie"), "; ") {
		name, value, _ := strings.Cut(c, "=")
		cookies = append(cookies, network.SetCookie(name, value).WithURL(srv.URL).WithHTTPOnly(name == "lsk_session"))
	}
	page := srv.SandboxURL + "/playground"
	open := func(at string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Navigate("about:blank"),
			chromedp.Navigate(at),
			chromedp.WaitVisible(".graphiql-execute-button", chromedp.ByQuery),
			chromedp.Poll(queryEditor+`.getValue() !== ''`, nil),
			chromedp.Sleep(500 * time.Millisecond),
		}
	}
	tabs := func(out *[]string) chromedp.Action {
		return chromedp.Evaluate(`[...document.querySelectorAll('.graphiql-tab')].map((t) => t.textContent.trim())`, out)
	}
	// run runs the active tab and returns its result.
	run := func(out *string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror') && document.querySelector('.result-window .CodeMirror').CodeMirror.setValue('')`, nil),
			chromedp.Click(".graphiql-execute-button", chromedp.ByQuery),
			chromedp.Poll(`(document.querySelector('.result-window .CodeMirror') || {}).CodeMirror?.getValue().trim().startsWith('{')`, nil,
				chromedp.WithPollingTimeout(20*time.Second)),
			chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`, out),
		}
	}
	var first []string
	var firstResult string
	actions := append([]chromedp.Action{network.Enable()}, cookies...)
	actions = append(actions, open(page), tabs(&first), run(&firstResult), chromedp.Sleep(time.Second))
	err := chromedp.Run(ctx, actions...)
	browsertest.Screenshot(t, ctx, "returning-first-visit")
	if err != nil {
		t.Fatalf("first visit: %v", err)
	}
	if len(first) != 5 || strings.Contains(firstResult, `"errors"`) {
		t.Fatalf("first visit: tabs %q, result %.300s", first, firstResult)
	}
	check := func(label, at string, active int, variable string) {
		t.Helper()
		var again []string
		var title, vars, result string
		err := chromedp.Run(ctx, open(at), tabs(&again),
			chromedp.Evaluate(`document.querySelector('.graphiql-tab-active').textContent.trim()`, &title),
			chromedp.Evaluate(variablesEditor+`.getValue()`, &vars),
			run(&result),
		)
		browsertest.Screenshot(t, ctx, "returning-"+label)
		if err != nil {
			t.Fatalf("%s (%s): %v", label, at, err)
		}
		if strings.Join(again, "|") != strings.Join(first, "|") {
			t.Errorf("%s: tabs %q, want the first visit's %q", label, again, first)
		}
		if title != first[active] || !strings.Contains(vars, `"`+variable+`"`) {
			t.Errorf("%s: active tab %q with variables %q, want %q with its %s", label, title, vars, first[active], variable)
		}
		if strings.Contains(result, `"errors"`) || !strings.Contains(result, `"data"`) {
			t.Errorf("%s: running the active tab: %.400s", label, result)
		}
	}
	check("second visit", page, 0, "status")
	check("third visit", page, 0, "status")

	// Look at the third example (variables: since), then come back.
	var address string
	err = chromedp.Run(ctx,
		chromedp.Click(`.graphiql-tab:nth-child(3) button`, chromedp.ByQuery),
		chromedp.Poll(queryEditor+`.getValue().includes('TrackingExceptionsThisWeek')`, nil),
		chromedp.Poll(variablesEditor+`.getValue().includes('since')`, nil),
		chromedp.Sleep(time.Second), // GraphiQL stores the editors' state debounced
		chromedp.Evaluate(`window.location.href`, &address),
	)
	if err != nil {
		t.Fatalf("third example: %v", err)
	}
	check("reload", address, 2, "since")
	check("bare page", page, 2, "since")
}
