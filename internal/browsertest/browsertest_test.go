package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"logistics/internal/browsertest"
)

func TestPathFromEnv(t *testing.T) {
	t.Setenv("CHROMIUM", "/nonexistent/chromium-for-browsertest")
	if p, ok := browsertest.Path(); ok || p != "/nonexistent/chromium-for-browsertest" {
		t.Fatalf("Path() = %q, %v; want the missing $CHROMIUM, false", p, ok)
	}
}

func TestNewRunsPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>browsertest</title><p id="out">static</p>
<script>document.getElementById("out").textContent = "scripted " + (1 + 1);</script>`)
	}))
	defer srv.Close()

	ctx := browsertest.New(t)
	var title, text string
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL),
		chromedp.Title(&title),
		chromedp.Text("#out", &text, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if title != "browsertest" || text != "scripted 2" {
		t.Fatalf("title %q, text %q; want browsertest, scripted 2", title, text)
	}
	browsertest.Screenshot(t, ctx, "page")
}
