package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/standardwebhooks"
)

// The Webhooks section as a user lives it: add an endpoint, see its secret
// once (gone after a reload), send a test event, and see the delivery with
// its status, latency and the receiver's answer; then disable the endpoint.
func TestConsoleWebhooks(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.WebhookAllowPrivate = true
		c.WebhookPoll = 100 * time.Millisecond
	}})
	var (
		mu       sync.Mutex
		secret   string
		verified int
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if standardwebhooks.Verify(secret, r.Header, body, time.Now(), time.Minute) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		verified++
		_, _ = io.WriteString(w, "received by the e2e receiver")
	}))
	t.Cleanup(rc.Close)
	ctx := browsertest.New(t, browsertest.WithTimeout(3*time.Minute)) // two page loads and a delivery, on a busy machine

	var shown, pageText, status, latency, response string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.WaitVisible("#webhooks", chromedp.ByQuery),
		// Both lists loaded (the tokens' rows, the empty webhooks hint)
		// before the click: on a loaded CI machine a click landed while
		// the tokens table was still filling in and moved the button, and
		// the form never opened.
		chromedp.WaitVisible("#tokens tbody tr", chromedp.ByQuery),
		chromedp.WaitVisible("#no-webhooks", chromedp.ByQuery),
		chromedp.Click("#new-webhook", chromedp.ByQuery),
		chromedp.WaitVisible("#webhook-form", chromedp.ByQuery),
		chromedp.SendKeys("#webhook-url", rc.URL+"/hooks", chromedp.ByQuery),
		chromedp.SendKeys("#webhook-types", "hub.*, webhook.test", chromedp.ByQuery),
		chromedp.Click("#webhook-create", chromedp.ByQuery),
		chromedp.WaitVisible("#webhook-secret", chromedp.ByQuery),
		chromedp.Text("#webhook-secret-value", &shown, chromedp.ByQuery),
		chromedp.WaitVisible(`#webhooks-table tbody tr .send-test`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-webhook-created")
	if err != nil {
		t.Fatal(err)
	}
	shown = strings.TrimSpace(shown)
	if !strings.HasPrefix(shown, "whsec_") {
		t.Fatalf("secret shown: %q", shown)
	}
	mu.Lock()
	secret = shown
	mu.Unlock()

	err = chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(`#webhooks-table tbody tr .send-test`, chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.outerHTML`, &pageText),
		chromedp.Click(`#webhooks-table tbody tr .send-test`, chromedp.ByQuery),
		chromedp.WaitVisible(`#deliveries-table tbody tr.delivery`, chromedp.ByQuery),
		chromedp.Poll(`(() => {
			const s = document.querySelector('#deliveries-table .delivery-status');
			if (s && s.textContent === 'succeeded') return true;
			document.getElementById('deliveries-refresh').click();
			return false;
		})()`, nil, chromedp.WithPollingInterval(300*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`#deliveries-table .delivery-status`, &status, chromedp.ByQuery),
		chromedp.Text(`#deliveries-table .latency`, &latency, chromedp.ByQuery),
		chromedp.Text(`#deliveries-table .response`, &response, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, ctx, "console-webhook-delivered")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pageText, shown) {
		t.Error("the secret is still on the page after a reload")
	}
	if status != "succeeded" || !strings.HasSuffix(latency, " ms") || !strings.Contains(response, "received by the e2e receiver") {
		t.Errorf("delivery row: status %q, latency %q, response %q", status, latency, response)
	}
	mu.Lock()
	if verified != 1 {
		t.Errorf("the receiver verified %d requests, want 1", verified)
	}
	mu.Unlock()

	var state string
	err = chromedp.Run(ctx,
		chromedp.Click(`#webhooks-table tbody tr .toggle`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#webhooks-table .webhook-status').textContent === 'disabled'`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`#webhooks-table .webhook-status`, &state, chromedp.ByQuery),
	)
	if err != nil || state != "disabled" {
		t.Fatalf("disable: %v, state %q", err, state)
	}
}
