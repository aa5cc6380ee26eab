package playground

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var (
	scriptSrc = regexp.MustCompile(`<script[^>]*\ssrc="([^"]*)"`)
	linkHref  = regexp.MustCompile(`<link[^>]*\shref="([^"]*)"`)
	anyURL    = regexp.MustCompile(`(?i)\b(?:src|href|action|content|data-[a-z-]+)="([^"]*)"`)
)

func assetURLs(t *testing.T, html string) (js, css string) {
	t.Helper()
	s := scriptSrc.FindAllStringSubmatch(html, -1)
	l := linkHref.FindAllStringSubmatch(html, -1)
	for _, m := range l {
		if strings.Contains(m[0], `rel="stylesheet"`) {
			css = m[1]
		}
	}
	if len(s) != 1 || css == "" {
		t.Fatalf("want one script and one stylesheet in\n%s", html)
	}
	return s[0][1], css
}

func TestPage(t *testing.T) {
	h := Handler("/sandbox/playground", "/sandbox/graphql", Config{Title: "Sandbox API"})
	for _, path := range []string{"/sandbox/playground", "/sandbox/playground/", "/sandbox/playground/?query=%7Bhubs%7D"} {
		rec := get(t, h, "GET", path, nil)
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
		hd := rec.Header()
		if ct := hd.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if hd.Get("X-Content-Type-Options") != "nosniff" {
			t.Error("no X-Content-Type-Options: nosniff")
		}
		csp := hd.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
			t.Errorf("CSP too lax: %q", csp)
		}
		body := rec.Body.String()
		for _, want := range []string{
			`data-endpoint="/sandbox/graphql"`,
			`<title>Sandbox API</title>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %s:\n%s", want, body)
			}
		}
		js, css := assetURLs(t, body)
		if !strings.HasPrefix(js, "/sandbox/playground/assets/graphiql.js?v=") ||
			!strings.HasPrefix(css, "/sandbox/playground/assets/graphiql.css?v=") {
			t.Errorf("asset URLs %q, %q", js, css)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("inline script or style (forbidden by the CSP):\n%s", body)
		}
	}
}

func TestPageEscapes(t *testing.T) {
	h := Handler("/playground/", `/graphql?x="><script>alert(1)</script>`, Config{Title: `</title><script>alert(2)</script>`})
	body := get(t, h, "GET", "/playground", nil).Body.String()
	if strings.Contains(body, "<script>alert") || strings.Count(body, "<script") != 1 {
		t.Fatalf("inputs not escaped:\n%s", body)
	}
	if !strings.Contains(body, `&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;`) {
		t.Errorf("title not escaped as text:\n%s", body)
	}
	if !strings.Contains(body, `data-endpoint="/graphql?x=&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Errorf("endpoint not escaped as attribute:\n%s", body)
	}
	// A trailing slash on basePath does not double it.
	if js, _ := assetURLs(t, body); !strings.HasPrefix(js, "/playground/assets/") {
		t.Errorf("script URL %q", js)
	}
}

func TestAssets(t *testing.T) {
	h := Handler("/playground", "/graphql", Config{})
	js, css := assetURLs(t, get(t, h, "GET", "/playground", nil).Body.String())
	for _, tc := range []struct {
		url, contentType, file string
	}{
		{js, "text/javascript; charset=utf-8", "assets/graphiql.js"},
		{css, "text/css; charset=utf-8", "assets/graphiql.css"},
	} {
		want, err := assetFS.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		rec := get(t, h, "GET", tc.url, nil)
		hd := rec.Header()
		if rec.Code != 200 || hd.Get("Content-Type") != tc.contentType {
			t.Fatalf("GET %s: %d %q", tc.url, rec.Code, hd.Get("Content-Type"))
		}
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("GET %s: body differs from %s", tc.url, tc.file)
		}
		if hd.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", tc.url, hd.Get("Cache-Control"))
		}
		if hd.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", tc.url)
		}
		etag := hd.Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{16}"$`).MatchString(etag) {
			t.Errorf("GET %s: ETag %q is not a strong hash", tc.url, etag)
		}

		// Conditional requests.
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			rec := get(t, h, "GET", tc.url, map[string]string{"If-None-Match": inm})
			if rec.Code != 304 || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				t.Errorf("If-None-Match %s: %d, %d bytes", inm, rec.Code, rec.Body.Len())
			}
		}
		if rec := get(t, h, "GET", tc.url, map[string]string{"If-None-Match": `"stale"`}); rec.Code != 200 {
			t.Errorf("stale If-None-Match: %d", rec.Code)
		}

		// Without (or with another) ?v= the file must be revalidated.
		base, _, _ := strings.Cut(tc.url, "?")
		for _, u := range []string{base, base + "?v=0123456789abcdef"} {
			rec := get(t, h, "GET", u, nil)
			if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-cache" || rec.Header().Get("ETag") != etag {
				t.Errorf("GET %s: %d, Cache-Control %q", u, rec.Code, rec.Header().Get("Cache-Control"))
			}
		}

		// HEAD: headers only.
		rec = get(t, h, "HEAD", tc.url, nil)
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
			t.Errorf("HEAD %s: %d, %d bytes", tc.url, rec.Code, rec.Body.Len())
		}

		// gzip, with its own ETag.
		rec = get(t, h, "GET", tc.url, map[string]string{"Accept-Encoding": "br, gzip"})
		if rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("GET %s with gzip: Content-Encoding %q", tc.url, rec.Header().Get("Content-Encoding"))
		}
		gzTag := rec.Header().Get("ETag")
		if gzTag == etag {
			t.Errorf("gzip and identity share ETag %s", etag)
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, want) {
			t.Errorf("gzip body differs (%v)", err)
		}
		rec = get(t, h, "GET", tc.url, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": gzTag})
		if rec.Code != 304 {
			t.Errorf("gzip If-None-Match: %d", rec.Code)
		}
		if rec := get(t, h, "GET", tc.url, map[string]string{"Accept-Encoding": "gzip;q=0"}); rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("gzip;q=0 got gzip")
		}
	}
}

var nonceAttr = regexp.MustCompile(`<link rel="stylesheet" href="[^"]*" nonce="([A-Za-z0-9_-]{24})">`)

func TestPageNonce(t *testing.T) {
	h := Handler("/playground", "/graphql", Config{})
	seen := map[string]bool{}
	for range 3 {
		rec := get(t, h, "GET", "/playground", nil)
		m := nonceAttr.FindStringSubmatch(rec.Body.String())
		if m == nil {
			t.Fatalf("no nonce on the stylesheet link:\n%s", rec.Body.String())
		}
		nonce := m[1]
		if seen[nonce] {
			t.Fatalf("nonce %s reused", nonce)
		}
		seen[nonce] = true
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "style-src 'self' 'nonce-"+nonce+"';") {
			t.Errorf("CSP %q lacks the nonce %s", csp, nonce)
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("CSP %q allows unsafe-inline", csp)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" || rec.Header().Get("ETag") != "" {
			t.Errorf("per-request page cacheable: Cache-Control %q, ETag %q", cc, rec.Header().Get("ETag"))
		}
	}
}

func TestMethodsAndNotFound(t *testing.T) {
	h := Handler("/playground", "/graphql", Config{})
	for _, path := range []string{"/playground", "/playground/", "/playground/assets/graphiql.js", "/playground/assets/graphiql.css"} {
		for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
			rec := get(t, h, m, path, nil)
			if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q", m, path, rec.Code, rec.Header().Get("Allow"))
			}
		}
		if rec := get(t, h, "HEAD", path, nil); rec.Code != 200 || rec.Body.Len() != 0 {
			t.Errorf("HEAD %s: %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
	}
	for _, path := range []string{
		"/playground/x", "/playground//", "/playground/assets", "/playground/assets/",
		"/playground/assets/other.js", "/playground/assets/graphiql.js/", "/playground/graphiql.js",
		"/playgroundx", "/playground/assets/../assets/graphiql.js", "/graphql", "/",
	} {
		if rec := get(t, h, "GET", path, nil); rec.Code != 404 {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
}

// TestNothingExternal checks that nothing the page loads comes from another
// origin. The bundle does contain absolute URLs, but only as text (licence
// comments, documentation links the user may click, XML namespace names,
// error messages); what matters is that none is loaded by the page.
func TestNothingExternal(t *testing.T) {
	h := Handler("/playground", "/graphql", Config{})
	html := get(t, h, "GET", "/playground", nil).Body.String()
	external := regexp.MustCompile(`(?i)^\s*(?:[a-z][a-z0-9+.-]*:|//|\\\\)`)
	for _, m := range anyURL.FindAllStringSubmatch(html, -1) {
		v := m[1]
		if strings.HasPrefix(m[0], "content=") || v == "data:," {
			continue
		}
		if external.MatchString(v) {
			t.Errorf("page references %s", m[0])
		}
	}

	css := string(mustRead(t, "assets/graphiql.css"))
	if regexp.MustCompile(`(?i)@import`).MatchString(css) {
		t.Error("CSS has @import")
	}
	urls := regexp.MustCompile(`(?i)url\(\s*['"]?([^'")\s]*)`).FindAllStringSubmatch(css, -1)
	for _, m := range urls {
		if !strings.HasPrefix(m[1], "data:") && !strings.HasPrefix(m[1], "#") {
			t.Errorf("CSS loads %.80s", m[0])
		}
	}
	if regexp.MustCompile(`(?i)https?:`).MatchString(css) {
		t.Error("CSS mentions an http(s) URL")
	}

	js := string(mustRead(t, "assets/graphiql.js"))
	// Ways a script loads something, applied to an absolute URL literal.
	loaders := regexp.MustCompile(`(?i)(?:\bimport\s*\(|importScripts\s*\(|new\s+(?:Shared)?Worker\s*\(|serviceWorker\.register\s*\(|\bfetch\s*\(|\.open\s*\(\s*["'` + "`" + `]GET["'` + "`" + `]\s*,|\.src\s*=|\.href\s*=|\bsrc\s*:|setAttribute\s*\(\s*["'](?:src|href)["']\s*,|sourceMappingURL=)\s*["'` + "`" + `]?(?:https?:)?//`)
	for _, bad := range []string{
		`import("https://cdn.example/x.js")`, `s.src="//cdn.example/x.js"`,
		`new Worker('https://cdn.example/w.js')`, "fetch(`https://cdn.example/schema`)",
		`{src:"https://cdn.example/x.js"}`, `//# sourceMappingURL=https://cdn.example/x.map`,
	} {
		if !loaders.MatchString(bad) {
			t.Fatalf("loader pattern misses %s", bad)
		}
	}
	if m := loaders.FindAllString(js, -1); len(m) > 0 {
		t.Errorf("the bundle loads absolute URLs: %q", m)
	}
	if strings.Contains(js, "sourceMappingURL") || strings.Contains(css, "sourceMappingURL") {
		t.Error("bundle refers to a source map that is not served")
	}
}

// TestBundleFetcher guards against a stale bundle: the fetcher written in
// web/main.jsx must be in the embedded JavaScript.
func TestBundleFetcher(t *testing.T) {
	js := string(mustRead(t, "assets/graphiql.js"))
	for _, want := range []string{
		`"lsk_csrf"`, `"X-CSRF-Token"`, `credentials:"same-origin"`,
		`"application/graphql-response+json, application/json"`,
		`.dataset.endpoint`, `hubs(first: 5)`,
		// The analysts' additions: header, examples, share links.
		`PlaygroundViewer`, `.dataset.examples`, `pg-share-link`, `missing_credentials`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("bundle lacks %s; rebuild it (see README.md)", want)
		}
	}
	if strings.Contains(js, "process.env.NODE_ENV") {
		t.Error("bundle not built for production")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := assetFS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPageConfig: the environment, base address, sign-in address and the
// examples reach the page, escaped, as data attributes (the CSP forbids
// inline scripts).
func TestPageConfig(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 4, 5, 0, time.UTC) // a Wednesday
	h := Handler("/sandbox/playground", "/sandbox/graphql", Config{Title: "Logistics sandbox", Environment: "sandbox",
		BaseURL: "http://127.0.0.1:8080/sandbox", SignIn: "http://127.0.0.1:8080/console", Now: func() time.Time { return now }})
	body := get(t, h, "GET", "/sandbox/playground", nil).Body.String()
	for _, want := range []string{`data-environment="sandbox"`, `data-base-url="http://127.0.0.1:8080/sandbox"`,
		`data-sign-in="http://127.0.0.1:8080/console"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	m := regexp.MustCompile(`data-examples="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no data-examples in\n%s", body)
	}
	var got []Example
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatal(err)
	}
	want, err := Examples(now)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) < 4 {
		t.Errorf("examples in the page differ from Examples(now): %d vs %d", len(got), len(want))
	}
}

// TestExamplesRender: titles and descriptions from the leading comments,
// templates rendered; dates from the clock (UTC midnights; the week starts
// on Monday).
func TestExamplesRender(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 30, 0, 0, time.FixedZone("", 3600)) // Sunday 22:30 UTC
	ex, err := Examples(now)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Example{}
	for _, e := range ex {
		byName[e.Name] = e
		if e.Title == "" || e.Description == "" || strings.Contains(e.Query, "{{") || strings.Contains(e.Variables, "{{") {
			t.Errorf("%s: title %q description %q, or an unrendered template", e.Name, e.Title, e.Description)
		}
	}
	exc := byName["3-tracking-exceptions"]
	if exc.Title != "Tracking exceptions this week" || !strings.Contains(exc.Variables, `"since": "2026-11-23T00:00:00Z"`) {
		t.Errorf("tracking exceptions: %q %s", exc.Title, exc.Variables)
	}

	funcs := templateFuncs(now)
	if got := funcs["weekStart"].(func() string)(); got != "2026-11-23T00:00:00Z" {
		t.Errorf("weekStart %s", got)
	}
	if got := funcs["day"].(func(int) string)(-6); got != "2026-11-23T00:00:00Z" {
		t.Errorf("day -6: %s", got)
	}
	days := funcs["days"].(func(int) []Day)(7)
	if len(days) != 7 || days[0] != (Day{"d2026_11_23", "2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z"}) ||
		days[6] != (Day{"d2026_11_29", "2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"}) {
		t.Errorf("days 7: %v", days)
	}
	if title, desc := describe("# A\n#\n# one\n# two\n#\n# three\nquery { x }"); title != "A" || desc != "one two" {
		t.Errorf("describe: %q %q", title, desc)
	}
}
