package auth_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

const (
	appOrigin  = "http://app.example.test"
	evilOrigin = "http://evil.example.test"
)

func corsServer(t *testing.T) *apptest.Server {
	return apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.CORSOrigins = appOrigin + ", http://localhost:*"
	}})
}

func hasVaryOrigin(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Origin") {
				return true
			}
		}
	}
	return false
}

// Preflights are answered before authentication: an allowed origin (exact
// or by pattern) gets the methods and headers, never "*"; another origin
// gets a 403 problem naming the setting to change.
func TestCORSPreflight(t *testing.T) {
	s := corsServer(t)
	for _, c := range []struct{ origin, url string }{
		{appOrigin, s.SandboxURL + "/graphql"},
		{"http://localhost:5173", s.URL + "/v1/orders"},
		{appOrigin, s.URL + "/console/api/login"},
		{appOrigin, s.SandboxURL + "/console/api/login"},
	} {
		r := s.Do(t, http.MethodOptions, c.url, nil, http.Header{"Authorization": {""}, "Origin": {c.origin},
			"Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"content-type,x-csrf-token,idempotency-key"}})
		if r.StatusCode != http.StatusNoContent {
			t.Fatalf("%s from %s: %d %s", c.url, c.origin, r.StatusCode, r.Body)
		}
		h := r.Header
		if h.Get("Access-Control-Allow-Origin") != c.origin || h.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("%s: allow-origin %q, credentials %q", c.url, h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Allow-Credentials"))
		}
		if got := h.Get("Access-Control-Allow-Headers"); got != "Authorization, Content-Type, X-CSRF-Token, Idempotency-Key, If-Match, Prefer, X-Read-After" {
			t.Errorf("allow-headers %q", got)
		}
		if m := h.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "POST") || !strings.Contains(m, "PATCH") || !strings.Contains(m, "DELETE") {
			t.Errorf("allow-methods %q", m)
		}
		if !hasVaryOrigin(h) {
			t.Errorf("Vary %q", h.Values("Vary"))
		}
	}
	r := s.Do(t, http.MethodOptions, s.SandboxURL+"/graphql", nil, http.Header{"Authorization": {""}, "Origin": {evilOrigin},
		"Access-Control-Request-Method": {"POST"}})
	if r.StatusCode != http.StatusForbidden || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("refused origin's preflight: %d, allow-origin %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
	if p := problem(t, r); !strings.Contains(p["detail"].(string), "--cors-origins") || !strings.Contains(p["detail"].(string), evilOrigin) {
		t.Errorf("detail %q should name the origin and the setting", p["detail"])
	}
}

// A credentialed browser session from an allowed origin signs in, reads and
// writes with the CSRF token; from another origin, sign-in and every unsafe
// session request are refused (GraphQL and REST), with the setting named.
func TestCORSCredentialedRequests(t *testing.T) {
	s := corsServer(t)
	login := map[string]string{"email": s.AdminEmail, "password": s.AdminPassword}

	r := s.Do(t, http.MethodPost, s.URL+"/console/api/login", login, http.Header{"Authorization": {""}, "Origin": {evilOrigin}})
	if r.StatusCode != http.StatusForbidden || r.Header.Get("Access-Control-Allow-Origin") != "" || len(r.Cookies()) != 0 {
		t.Fatalf("sign-in from a refused origin: %d %s (cookies %v)", r.StatusCode, r.Body, r.Cookies())
	}
	if p := problem(t, r); p["code"] != "cross_origin" || !strings.Contains(p["detail"].(string), "--cors-origins") {
		t.Errorf("problem %v", p)
	}

	r = s.Do(t, http.MethodPost, s.URL+"/console/api/login", login, http.Header{"Authorization": {""}, "Origin": {appOrigin}})
	if r.StatusCode != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != appOrigin ||
		r.Header.Get("Access-Control-Allow-Credentials") != "true" || !hasVaryOrigin(r.Header) {
		t.Fatalf("sign-in from the allowed origin: %d %v %s", r.StatusCode, r.Header, r.Body)
	}
	var csrf string
	var cookies []string
	for _, c := range r.Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
		if c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure {
			t.Errorf("cookie %s: SameSite %v, Path %q, Secure %v", c.Name, c.SameSite, c.Path, c.Secure)
		}
		if c.Name == auth.CSRFCookie {
			csrf = c.Value
		}
		if c.Name == auth.SessionCookie && !c.HttpOnly {
			t.Error("the session cookie must be HttpOnly")
		}
	}
	var body struct {
		CSRFToken string `json:"csrfToken"`
	}
	r.JSON(t, &body)
	if csrf == "" || body.CSRFToken != csrf {
		t.Fatalf("csrfToken %q, cookie %q: an app on another site needs the token in the answer", body.CSRFToken, csrf)
	}
	session := func(origin string) http.Header {
		return http.Header{"Authorization": {""}, "Cookie": {strings.Join(cookies, "; ")}, auth.CSRFHeader: {csrf}, "Origin": {origin}}
	}

	mutation := map[string]any{"query": `mutation { createHub(input: {code: "CRS1", name: "Cors", kind: warehouse, city: "Utrecht", country: "NL"}) { id } }`}
	r = s.Do(t, http.MethodPost, s.SandboxURL+"/graphql", mutation, session(appOrigin))
	if r.StatusCode != http.StatusOK || strings.Contains(string(r.Body), `"errors"`) {
		t.Fatalf("session mutation from the allowed origin: %d %s", r.StatusCode, r.Body)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != appOrigin ||
		r.Header.Get("Access-Control-Expose-Headers") != "ETag, Location, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id, X-Ignored-Filters, X-Read-After, Preference-Applied, Idempotent-Replayed" {
		t.Errorf("CORS headers of the answer: %v", r.Header)
	}
	r = s.Do(t, http.MethodGet, s.URL+"/console/api/session", nil, session(appOrigin))
	if r.StatusCode != http.StatusOK || !strings.Contains(string(r.Body), csrf) {
		t.Errorf("GET session: %d %s", r.StatusCode, r.Body)
	}

	// The same session, cookie and token, from a refused origin.
	mutation = map[string]any{"query": `mutation { createHub(input: {code: "CRS2", name: "Evil", kind: warehouse, city: "Utrecht", country: "NL"}) { id } }`}
	r = s.Do(t, http.MethodPost, s.SandboxURL+"/graphql", mutation, session(evilOrigin))
	if r.StatusCode != http.StatusForbidden || r.Header.Get("Access-Control-Allow-Origin") != "" ||
		!strings.Contains(string(r.Body), "cross_origin") || !strings.Contains(string(r.Body), "--cors-origins") {
		t.Fatalf("session mutation from a refused origin: %d %s", r.StatusCode, r.Body)
	}
	r = s.Do(t, http.MethodPost, s.SandboxURL+"/v1/hubs", map[string]any{"code": "CRS3", "name": "Evil", "kind": "warehouse", "city": "X", "country": "NL"}, session(evilOrigin))
	if r.StatusCode != http.StatusForbidden {
		t.Fatalf("REST write from a refused origin: %d %s", r.StatusCode, r.Body)
	}
	if n := s.GraphQL(t, environment.Sandbox, `{ hubs(where: {codeIn: ["CRS2", "CRS3"]}) { totalCount } }`, nil); !strings.Contains(string(n.Data), `"totalCount":0`) {
		t.Errorf("a refused write happened: %s", n.Data)
	}
	// A safe request is not refused, but the browser may not read it.
	r = s.Do(t, http.MethodGet, s.SandboxURL+"/v1/hubs", nil, session(evilOrigin))
	if r.StatusCode != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "" || !hasVaryOrigin(r.Header) {
		t.Errorf("GET from a refused origin: %d, allow-origin %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
}

// With a loopback base host, the console signs in from localhost,
// 127.0.0.1 and [::1] at the server's port; another port is refused with the
// setting named.
func TestSignInFromLoopbackNames(t *testing.T) {
	s := apptest.New(t)
	u, _ := url.Parse(s.URL)
	port := u.Port()
	login := map[string]string{"email": s.AdminEmail, "password": s.AdminPassword}
	for _, origin := range []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port} {
		r := s.Do(t, http.MethodPost, s.URL+"/console/api/login", login, http.Header{"Authorization": {""}, "Origin": {origin}})
		if r.StatusCode != http.StatusOK {
			t.Errorf("sign-in from %s: %d %s", origin, r.StatusCode, r.Body)
		}
	}
	r := s.Do(t, http.MethodPost, s.URL+"/console/api/login", login, http.Header{"Authorization": {""}, "Origin": {"http://localhost:1"}})
	if r.StatusCode != http.StatusForbidden || !strings.Contains(string(r.Body), "--cors-origins") {
		t.Errorf("sign-in from another port: %d %s", r.StatusCode, r.Body)
	}
}

func TestOriginsList(t *testing.T) {
	for _, bad := range []string{"*", "localhost:5173", "http://app.example/path", "ftp://x", "http://*.example.com", "http://a:1:*"} {
		if _, err := auth.ParseOriginList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	entries, err := auth.ParseOriginList(" https://App.Example.com:443 , http://localhost:*,")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://api.example.com")
	o := auth.NewOrigins([]*url.URL{base}, entries)
	for origin, want := range map[string]bool{
		"https://app.example.com":      true,
		"https://api.example.com":      true,
		"http://localhost:5173":        true,
		"http://localhost":             true,
		"https://localhost:5173":       false,
		"http://app.example.com":       false,
		"https://app.example.com.evil": false,
		"http://127.0.0.1:5173":        false,
		"null":                         false,
		"https://app.example.com/x":    false,
	} {
		if got := o.Allowed(origin); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", origin, got, want)
		}
	}
}

// SameSite=None (for a cross-site app) is written with Secure.
func TestSessionCookieAttributes(t *testing.T) {
	w := httptest.NewRecorder()
	auth.SetSessionCookies(w, &auth.NewSession{Secret: "s", CSRF: "c"}, auth.CookieOptions{Secure: true, SameSite: http.SameSiteNoneMode})
	for _, line := range w.Result().Header.Values("Set-Cookie") {
		if !strings.Contains(line, "SameSite=None") || !strings.Contains(line, "Secure") {
			t.Errorf("Set-Cookie %q", line)
		}
	}
}

// A cross-site deployment (docs/auth.md): --cookie-samesite none with an
// https base address; the app's origin signs in and gets SameSite=None;
// Secure cookies, with its CORS answer.
func TestCrossSiteSessionCookies(t *testing.T) {
	const crossSiteApp = "https://app.example.net"
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.BaseURL = strings.Replace(c.BaseURL, "http://", "https://", 1)
		c.SandboxURL = strings.Replace(c.SandboxURL, "http://", "https://", 1)
		c.CookieSameSite = "none"
		c.CORSOrigins = crossSiteApp
	}})
	// The test server itself speaks plain HTTP; routing is by path.
	r := s.Do(t, http.MethodPost, strings.Replace(s.SandboxURL, "https://", "http://", 1)+"/console/api/login",
		map[string]string{"email": s.AdminEmail, "password": s.AdminPassword}, http.Header{"Authorization": {""}, "Origin": {crossSiteApp}})
	if r.StatusCode != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != crossSiteApp || len(r.Cookies()) != 2 {
		t.Fatalf("sign-in from %s: %d %v %s", crossSiteApp, r.StatusCode, r.Header, r.Body)
	}
	for _, c := range r.Cookies() {
		if c.SameSite != http.SameSiteNoneMode || !c.Secure {
			t.Errorf("cookie %s: SameSite %v, Secure %v; want None, Secure", c.Name, c.SameSite, c.Secure)
		}
	}
}
