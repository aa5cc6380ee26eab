package graph_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/internal/environment"
)

// TestSubscriptionInBrowser: the playground page, signed in with the
// console session cookie only, runs a subscription over WebSocket (the
// bundled graphql-ws client) and shows an order created through REST by
// another client (an API key).
func TestSubscriptionInBrowser(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	ctx := browsertest.New(t)

	var cookies []chromedp.Action
	for _, c := range strings.Split(srv.Session(t, srv.AdminEmail, srv.AdminPassword).Get("Cookie"), "; ") {
		name, value, _ := strings.Cut(c, "=")
		cookies = append(cookies, network.SetCookie(name, value).WithURL(srv.URL).WithHTTPOnly(name == "lsk_session"))
	}
	query := "subscription {\n  orderChanged {\n    sequence\n    type\n    order { id customerRef }\n  }\n}\n"
	target := srv.URL + "/playground?" + url.Values{"query": {query}}.Encode()
	actions := append([]chromedp.Action{network.Enable()}, cookies...)
	actions = append(actions,
		chromedp.Navigate(target),
		chromedp.WaitVisible(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue().includes('orderChanged')`, nil),
		chromedp.Click(".graphiql-execute-button", chromedp.ByQuery),
		chromedp.Sleep(time.Second), // the WebSocket is open and subscribed
	)
	if err := chromedp.Run(ctx, actions...); err != nil {
		browsertest.Screenshot(t, ctx, "subscription-start")
		t.Fatal(err)
	}

	hub := newFixture(t, srv, env).hub("AMS6", "Amsterdam", "NL")
	id := restOrder(t, srv, env, hub, "BROWSER-1") // another client: the API key

	var response string
	err := chromedp.Run(ctx,
		chromedp.Poll(`(document.querySelector('.result-window .CodeMirror') || {}).CodeMirror?.getValue().includes('`+id+`')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`, &response),
	)
	browsertest.Screenshot(t, ctx, "subscription")
	if err != nil {
		t.Fatalf("the page did not show the order change: %v (%q)", err, response)
	}
	if !strings.Contains(response, "order.created") || !strings.Contains(response, "BROWSER-1") {
		t.Fatalf("response: %s", response)
	}
}
