package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"logistics/ent/apitoken"
	"logistics/ent/session"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// problem decodes a problem+json body.
func problem(t *testing.T, r *apptest.Response) map[string]any {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q: %s", ct, r.Body)
	}
	var p map[string]any
	r.JSON(t, &p)
	return p
}

func newKey(t *testing.T, s *apptest.Server, env environment.Name, scopes ...string) string {
	t.Helper()
	secret, _, err := s.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{Name: "test", Environment: env, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func TestMissingAndBadCredentials(t *testing.T) {
	s := apptest.New(t)
	for _, base := range []string{s.URL, s.SandboxURL} {
		for _, path := range []string{"/v1/status", "/v1/hubs", "/graphql?query={__typename}"} {
			r := s.Do(t, "GET", base+path, nil, apptest.Anonymous())
			if r.StatusCode != 401 || r.Header.Get("WWW-Authenticate") != `Bearer realm="logistics"` {
				t.Fatalf("%s%s: %d %q", base, path, r.StatusCode, r.Header.Get("WWW-Authenticate"))
			}
		}
		for _, h := range []string{"Bearer lsk_live_nope", "Bearer lsk_test_nope", "Bearer junk", "Basic YTpi", "Bearer "} {
			r := s.Do(t, "GET", base+"/v1/status", nil, http.Header{"Authorization": {h}})
			if r.StatusCode != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), `Bearer realm="logistics", error="invalid_token"`) {
				t.Fatalf("%s %q: %d %q", base, h, r.StatusCode, r.Header.Get("WWW-Authenticate"))
			}
			if p := problem(t, r); p["code"] != "invalid_token" || p["status"] != 401.0 {
				t.Fatalf("%v", p)
			}
		}
	}
	// Health checks, the playground page and the console page stay open.
	for _, u := range []string{s.URL + "/healthz", s.URL + "/readyz", s.URL + "/playground", s.SandboxURL + "/playground", s.URL + "/console", s.URL + "/console/app.js"} {
		if r := s.Do(t, "GET", u, nil, apptest.Anonymous()); r.StatusCode != 200 {
			t.Errorf("%s: %d", u, r.StatusCode)
		}
	}
	// The default credentials of apptest work in both environments.
	for _, base := range []string{s.URL, s.SandboxURL} {
		if r := s.Do(t, "GET", base+"/v1/status", nil, nil); r.StatusCode != 200 || r.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("%s: %d %s", base, r.StatusCode, r.Body)
		}
	}
}

func TestGraphQLUnauthenticatedShape(t *testing.T) {
	s := apptest.New(t)
	g := s.GraphQLWith(t, environment.Production, "{ hubs { totalCount } }", nil, apptest.Anonymous())
	if g.Status != 401 || len(g.Errors) != 1 || g.Errors[0].Code() != "UNAUTHENTICATED" {
		t.Fatalf("%d %+v", g.Status, g.Errors)
	}
	g = s.GraphQLWith(t, environment.Sandbox, "{ hubs { totalCount } }", nil, apptest.Bearer("lsk_test_unknown"))
	if g.Status != 401 || g.Errors[0].Code() != "UNAUTHENTICATED" || g.Errors[0].Extensions["reason"] != "invalid_token" {
		t.Fatalf("%d %+v", g.Status, g.Errors)
	}
}

func TestKeyBoundToEnvironment(t *testing.T) {
	s := apptest.New(t)
	cases := []struct{ key, wrongBase, rightBase string }{
		{s.Keys[environment.Production], s.SandboxURL, s.URL},
		{s.Keys[environment.Sandbox], s.URL, s.SandboxURL},
	}
	for _, c := range cases {
		r := s.Do(t, "GET", c.wrongBase+"/v1/status", nil, apptest.Bearer(c.key))
		p := problem(t, r)
		if r.StatusCode != 401 || p["code"] != "invalid_token" || !strings.Contains(p["detail"].(string), "send it to "+c.rightBase+",") {
			t.Fatalf("%s at %s: %d %v", c.key[:9], c.wrongBase, r.StatusCode, p)
		}
		if r := s.Do(t, "GET", c.rightBase+"/v1/status", nil, apptest.Bearer(c.key)); r.StatusCode != 200 {
			t.Fatalf("%d", r.StatusCode)
		}
	}
	if !strings.HasPrefix(s.Keys[environment.Production], "lsk_live_") || !strings.HasPrefix(s.Keys[environment.Sandbox], "lsk_test_") ||
		len(s.Keys[environment.Production]) < len("lsk_live_")+26 {
		t.Fatalf("key format: %v", s.Keys)
	}
}

func TestStoredOnlyAsHash(t *testing.T) {
	s := apptest.New(t)
	key := s.Keys[environment.Production]
	toks := s.App.Envs.Production().DB.Client.APIToken.Query().AllX(context.Background())
	for _, tok := range toks {
		if strings.Contains(tok.SecretHash, key) || strings.Contains(tok.DisplayPrefix, key[len(key)-10:]) {
			t.Fatalf("secret stored: %+v", tok)
		}
		if len(tok.SecretHash) != 64 {
			t.Fatalf("hash %q", tok.SecretHash)
		}
	}
	if n := s.App.Envs.Get(environment.Sandbox).DB.Client.APIToken.Query().CountX(context.Background()); n != 0 {
		t.Fatalf("%d tokens in the sandbox database: tokens live in production", n)
	}
}

func TestRevokedAndExpired(t *testing.T) {
	s := apptest.New(t)
	ctx := context.Background()
	db := s.App.Envs.Production().DB.Client
	revoked := newKey(t, s, environment.Production, "all")
	expired := newKey(t, s, environment.Production, "all")
	for _, k := range []string{revoked, expired} {
		if r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(k)); r.StatusCode != 200 {
			t.Fatal(r.StatusCode)
		}
	}
	past := time.Now().Add(-time.Minute)
	db.APIToken.Update().Where(apitoken.DisplayPrefix(revoked[:15])).SetRevokedAt(past).ExecX(ctx)
	db.APIToken.Update().Where(apitoken.DisplayPrefix(expired[:15])).SetExpiresAt(past).ExecX(ctx)
	for name, k := range map[string]string{"revoked": revoked, "expired": expired} {
		r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(k))
		p := problem(t, r)
		if r.StatusCode != 401 || p["code"] != "invalid_token" || !strings.Contains(p["detail"].(string), name) {
			t.Fatalf("%s: %d %v", name, r.StatusCode, p)
		}
	}
	if _, _, err := s.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "x", Environment: environment.Production, Scopes: []string{"all"}, ExpiresAt: &past}); err == nil {
		t.Fatal("a key that expired already was created")
	}
}

func TestLastUsedAtWrittenAtMostOncePerMinute(t *testing.T) {
	s := apptest.New(t)
	ctx := context.Background()
	store := s.App.Auth.Store
	var mu sync.Mutex
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	store.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	key := newKey(t, s, environment.Production, "hubs:read")
	lastUsed := func() *time.Time {
		return s.App.Envs.Production().DB.Client.APIToken.Query().Where(apitoken.DisplayPrefix(key[:15])).OnlyX(ctx).LastUsedAt
	}
	if lastUsed() != nil {
		t.Fatal("used before use")
	}
	s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key))
	first := lastUsed()
	if first == nil || !first.Equal(now) {
		t.Fatalf("last_used_at %v, want %v", first, now)
	}
	advance(30 * time.Second)
	for range 5 {
		s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key))
	}
	if got := lastUsed(); !got.Equal(*first) {
		t.Fatalf("written again within the minute: %v", got)
	}
	advance(31 * time.Second)
	s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key))
	if got := lastUsed(); !got.Equal(now) {
		t.Fatalf("not written after a minute: %v, want %v", got, now)
	}
}

func TestScopesREST(t *testing.T) {
	s := apptest.New(t)
	// GET /v1/status needs only a valid key, whatever its scopes.
	key := newKey(t, s, environment.Production, "tracking:read")
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key)); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	// auth.Need in front of a real route of the running server's chain.
	mux := http.NewServeMux()
	mux.Handle("POST /v1/orders", auth.Need("orders:write", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })))
	h := s.App.Auth.Authenticate(mux)
	env := s.App.Envs.Production()
	for _, c := range []struct {
		key    string
		status int
	}{{"", 401}, {key, 403}, {newKey(t, s, environment.Production, "orders:write"), 201}} {
		req := httptest.NewRequest("POST", "/v1/orders", strings.NewReader("{}"))
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		req = req.WithContext(environment.NewContext(req.Context(), env))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != c.status {
			t.Fatalf("%d, want %d: %s", w.Code, c.status, w.Body)
		}
		if c.status == 403 {
			if w.Header().Get("WWW-Authenticate") != `Bearer realm="logistics", error="insufficient_scope", scope="orders:write"` {
				t.Fatalf("%q", w.Header().Get("WWW-Authenticate"))
			}
			var p map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if p["code"] != "insufficient_scope" || p["scope"] != "orders:write" {
				t.Fatalf("%v", p)
			}
		}
	}
}

func TestScopesGraphQL(t *testing.T) {
	s := apptest.New(t)
	var hub struct {
		CreateHub struct{ ID string } `json:"createHub"`
	}
	s.MustGraphQL(t, environment.Production, `mutation { createHub(input: {code: "AMS1", name: "Amsterdam", kind: warehouse,
		addressLine1: "Street 1", city: "Amsterdam", postalCode: "1000AA", country: "NL", timezone: "Europe/Amsterdam"}) { id } }`, nil, &hub)
	reader := apptest.Bearer(newKey(t, s, environment.Production, "hubs:read"))
	partsOnly := apptest.Bearer(newKey(t, s, environment.Production, "parts:read"))
	code := func(g *apptest.GQLResponse) string {
		if len(g.Errors) == 0 {
			return ""
		}
		return g.Errors[0].Code()
	}
	for _, c := range []struct {
		name   string
		header http.Header
		query  string
		want   string
	}{
		{"read allowed", reader, `{ hubs { totalCount edges { node { code } } } }`, ""},
		{"write refused", reader, `mutation { deleteHub(id: "` + hub.CreateHub.ID + `") }`, "FORBIDDEN"},
		{"other resource refused", reader, `{ parts { totalCount } }`, "FORBIDDEN"},
		{"node of another resource refused", partsOnly, `{ node(id: "` + hub.CreateHub.ID + `") { id } }`, "FORBIDDEN"},
		{"nodes of another resource refused", partsOnly, `{ nodes(ids: ["` + hub.CreateHub.ID + `"]) { id } }`, "FORBIDDEN"},
		{"node allowed", reader, `{ node(id: "` + hub.CreateHub.ID + `") { id ... on Hub { code } } }`, ""},
		{"events of a readable type", reader, `{ events { totalCount } }`, ""},
		{"events of a type asked for by name need its scope", partsOnly, `{ events(where: {type: "hub.created"}) { totalCount } }`, "FORBIDDEN"},
		{"events of a type in typeIn need its scope", partsOnly, `{ events(where: {typeIn: ["part.created", "hub.created"]}) { totalCount } }`, "FORBIDDEN"},
		{"introspection is fine", partsOnly, `{ __schema { queryType { name } } }`, ""},
		{"console fields need a session", reader, `{ apiTokens { id } }`, "FORBIDDEN"},
		{"me is null for a key", reader, `{ me { id } }`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := s.GraphQLWith(t, environment.Production, c.query, nil, c.header)
			if got := code(g); got != c.want {
				t.Fatalf("code %q, want %q: %+v %s", got, c.want, g.Errors, g.Data)
			}
			if c.want == "FORBIDDEN" && g.Errors[0].Extensions["reason"] != "insufficient_scope" && g.Errors[0].Extensions["reason"] != "session_required" {
				t.Fatalf("%+v", g.Errors[0])
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.RateLimit = 0.001; c.RateBurst = 3 }})
	key := newKey(t, s, environment.Production, "all")
	for i := range 3 {
		r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key))
		if r.StatusCode != 200 || r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != string(rune('2'-i)) || r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i, r.StatusCode, r.Header)
		}
	}
	r := s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key))
	if p := problem(t, r); r.StatusCode != 429 || r.Header.Get("Retry-After") == "" || p["code"] != "rate_limited" {
		t.Fatalf("%d %v %v", r.StatusCode, r.Header, p)
	}
	g := s.GraphQLWith(t, environment.Production, "{ __typename }", nil, apptest.Bearer(key))
	if g.Status != 429 || g.Errors[0].Code() != "RATE_LIMITED" {
		t.Fatalf("%d %+v", g.Status, g.Errors)
	}
	// Another key, and the sandbox key, have their own buckets.
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/status", nil, nil); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, nil); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	// A console session has its own bucket too, and is limited the same way.
	ses := s.Session(t, s.AdminEmail, s.AdminPassword)
	for i := range 3 {
		if r := s.Do(t, "GET", s.URL+"/v1/status", nil, ses); r.StatusCode != 200 || r.Header.Get("RateLimit-Remaining") != string(rune('2'-i)) {
			t.Fatalf("session request %d: %d %v", i, r.StatusCode, r.Header)
		}
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, ses); r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("session: %d", r.StatusCode)
	}
}

func TestDefaultRateLimitConfig(t *testing.T) {
	c := app.Defaults()
	if c.RateLimit != 100 || c.RateBurst != 200 {
		t.Fatalf("%v %v", c.RateLimit, c.RateBurst)
	}
	rest, err := c.Load("serve", []string{"--rate-burst", "50"}, func(k string) string {
		return map[string]string{"LOGISTICS_RATE_LIMIT": "25.5"}[k]
	})
	if err != nil || len(rest) != 0 || c.RateLimit != 25.5 || c.RateBurst != 50 {
		t.Fatalf("%v %v %v", err, c.RateLimit, c.RateBurst)
	}
}

func login(t *testing.T, s *apptest.Server, email, password string) *apptest.Response {
	return s.Do(t, "POST", s.URL+"/console/api/login", map[string]string{"email": email, "password": password}, apptest.Anonymous())
}

func TestSessionCookiesAndCSRF(t *testing.T) {
	s := apptest.New(t)
	r := login(t, s, s.AdminEmail, s.AdminPassword)
	if r.StatusCode != 200 {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	var sessionValue, csrf string
	for _, c := range r.Cookies() {
		switch c.Name {
		case auth.SessionCookie:
			sessionValue = c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" {
				t.Fatalf("session cookie %+v", c)
			}
		case auth.CSRFCookie:
			csrf = c.Value
			if c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Fatalf("csrf cookie %+v", c)
			}
		}
	}
	if len(sessionValue) < 40 || csrf == "" {
		t.Fatalf("cookies %v", r.Cookies())
	}
	// Stored by hash only.
	ses := s.App.Envs.Production().DB.Client.Session.Query().OnlyX(context.Background())
	if ses.TokenHash == sessionValue || len(ses.TokenHash) != 64 {
		t.Fatalf("session stored as %q", ses.TokenHash)
	}

	cookie := http.Header{"Authorization": {""}, "Cookie": {auth.SessionCookie + "=" + sessionValue + "; " + auth.CSRFCookie + "=" + csrf}}
	withCSRF := cookie.Clone()
	withCSRF.Set(auth.CSRFHeader, csrf)
	badCSRF := cookie.Clone()
	badCSRF.Set(auth.CSRFHeader, "x"+csrf)

	// Safe requests need no token.
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, cookie); r.StatusCode != 200 {
		t.Fatalf("GET with session: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, "GET", s.SandboxURL+`/graphql?query={hubs{totalCount}}`, nil, cookie); r.StatusCode != 200 {
		t.Fatalf("GET graphql in the sandbox with session: %d %s", r.StatusCode, r.Body)
	}
	// Every POST does.
	for name, h := range map[string]http.Header{"no token": cookie, "wrong token": badCSRF} {
		g := s.GraphQLWith(t, environment.Production, "{ me { email } }", nil, h)
		if g.Status != 403 || g.Errors[0].Code() != "FORBIDDEN" || g.Errors[0].Extensions["reason"] != "csrf_token_invalid" {
			t.Fatalf("%s: %d %+v", name, g.Status, g.Errors)
		}
		if r := s.Do(t, "POST", s.URL+"/v1/hubs", "{}", h); r.StatusCode != 403 || problem(t, r)["code"] != "csrf_token_invalid" {
			t.Fatalf("%s: REST POST %d", name, r.StatusCode)
		}
	}
	var me struct{ Me struct{ Email, Role string } }
	g := s.GraphQLWith(t, environment.Production, "{ me { email role } }", nil, withCSRF)
	if g.Status != 200 || len(g.Errors) > 0 {
		t.Fatalf("%d %+v", g.Status, g.Errors)
	}
	_ = json.Unmarshal(g.Data, &me)
	if me.Me.Email != s.AdminEmail || me.Me.Role != "owner" {
		t.Fatalf("%+v", me)
	}
	// A Bearer key wins over the cookie and needs no CSRF token.
	both := cookie.Clone()
	both.Set("Authorization", "Bearer "+s.Keys[environment.Production])
	if g := s.GraphQLWith(t, environment.Production, "{ me { email } }", nil, both); g.Status != 200 || string(g.Data) != `{"me":null}` {
		t.Fatalf("%d %s", g.Status, g.Data)
	}

	// Log out: without the token refused, with it the session is gone.
	if r := s.Do(t, "POST", s.URL+"/console/api/logout", nil, cookie); r.StatusCode != 403 {
		t.Fatalf("logout without CSRF: %d", r.StatusCode)
	}
	if r := s.Do(t, "POST", s.URL+"/console/api/logout", nil, withCSRF); r.StatusCode != 204 {
		t.Fatalf("logout: %d", r.StatusCode)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, cookie); r.StatusCode != 401 || problem(t, r)["code"] != "invalid_token" {
		t.Fatalf("after logout: %d", r.StatusCode)
	}
}

func TestSessionExpires(t *testing.T) {
	s := apptest.New(t)
	h := s.Session(t, s.AdminEmail, s.AdminPassword)
	s.App.Envs.Production().DB.Client.Session.Update().Where(session.ExpiresAtGT(time.Now())).
		SetExpiresAt(time.Now().Add(-time.Second)).ExecX(context.Background())
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, h); r.StatusCode != 401 {
		t.Fatalf("%d", r.StatusCode)
	}
	// The next sign-in sweeps it away.
	s.Session(t, s.AdminEmail, s.AdminPassword)
	if n := s.App.Envs.Production().DB.Client.Session.Query().CountX(context.Background()); n != 1 {
		t.Fatalf("%d sessions, want only the new one", n)
	}
}

func TestSecureCookiesOverHTTPS(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.BaseURL = strings.Replace(c.BaseURL, "http://", "https://", 1)
		c.SandboxURL = strings.Replace(c.SandboxURL, "http://", "https://", 1)
	}})
	// The test server itself speaks plain HTTP; routing is by path.
	r := s.Do(t, "POST", strings.Replace(s.URL, "https://", "http://", 1)+"/console/api/login",
		map[string]string{"email": s.AdminEmail, "password": s.AdminPassword}, apptest.Anonymous())
	if r.StatusCode != 200 || len(r.Cookies()) != 2 {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	for _, c := range r.Cookies() {
		if !c.Secure {
			t.Fatalf("%s is not Secure", c.Name)
		}
	}
}

func TestSessionServedByAnotherInstance(t *testing.T) {
	s := apptest.New(t)
	h := s.Session(t, s.AdminEmail, s.AdminPassword)
	// A second instance on the same databases.
	ctx := context.Background()
	b, err := app.Open(ctx, s.App.Config, slog.New(slog.DiscardHandler), app.Options{PasswordCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	req := httptest.NewRequest("GET", s.URL+"/v1/status", nil)
	req.Host = strings.TrimPrefix(s.URL, "http://")
	req.Header.Set("Cookie", h.Get("Cookie"))
	w := httptest.NewRecorder()
	b.Handler().ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("second instance: %d %s", w.Code, w.Body)
	}
}

func TestLoginGenericFailureAndThrottle(t *testing.T) {
	s := apptest.New(t)
	unknown := problem(t, login(t, s, "nobody@example.com", "whatever-password"))
	wrong := problem(t, login(t, s, s.AdminEmail, "wrong-password!"))
	for _, p := range []map[string]any{unknown, wrong} {
		if p["status"] != 401.0 || p["code"] != "invalid_login" || p["detail"] != "invalid email or password" {
			t.Fatalf("%v", p)
		}
	}
	// Per account: 5 attempts at once (two spent above on this address,
	// one on this account), then 429 even with the right password.
	for i := range 4 {
		if r := login(t, s, s.AdminEmail, "wrong-password!"); r.StatusCode != 401 {
			t.Fatalf("attempt %d: %d", i, r.StatusCode)
		}
	}
	r := login(t, s, s.AdminEmail, s.AdminPassword)
	if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("%d %v", r.StatusCode, r.Header)
	}
	// Per address: 20 at once across accounts.
	got429 := false
	for i := range 20 {
		r := login(t, s, "user"+string(rune('a'+i))+"@example.com", "whatever-password")
		if r.StatusCode == 429 {
			got429 = true
			break
		}
	}
	if !got429 {
		t.Fatal("no per-address limit")
	}
	// Cross-site and non-JSON sign-ins are refused.
	bad := s.Do(t, "POST", s.URL+"/console/api/login", `{"email":"a","password":"b"}`,
		http.Header{"Authorization": {""}, "Content-Type": {"application/json"}, "Origin": {"https://evil.example"}})
	if bad.StatusCode != 403 {
		t.Fatalf("cross-origin login: %d", bad.StatusCode)
	}
	form := s.Do(t, "POST", s.URL+"/console/api/login", "email=a&password=b",
		http.Header{"Authorization": {""}, "Content-Type": {"application/x-www-form-urlencoded"}})
	if form.StatusCode != 415 {
		t.Fatalf("form login: %d", form.StatusCode)
	}
}

func TestConsoleTokensOverGraphQL(t *testing.T) {
	s := apptest.New(t)
	ctx := context.Background()
	owner := s.Session(t, s.AdminEmail, s.AdminPassword)
	var created struct {
		CreateAPIToken struct {
			Secret string
			Token  struct{ ID, Prefix, Environment string }
		} `json:"createApiToken"`
	}
	g := s.GraphQLWith(t, environment.Sandbox, `mutation { createApiToken(input: {name: "ci", environment: "sandbox", scopes: ["orders:read"]}) { secret token { id prefix environment } } }`, nil, owner)
	if len(g.Errors) > 0 {
		t.Fatalf("%+v", g.Errors)
	}
	_ = json.Unmarshal(g.Data, &created)
	c := created.CreateAPIToken
	if !strings.HasPrefix(c.Secret, "lsk_test_") || !strings.HasPrefix(c.Secret, c.Token.Prefix) || c.Token.Environment != "sandbox" {
		t.Fatalf("%+v", c)
	}
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/status", nil, apptest.Bearer(c.Secret)); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	// The list never holds the secret.
	g = s.GraphQLWith(t, environment.Production, `{ apiTokens { id name prefix environment scopes createdAt lastUsedAt expiresAt revokedAt } }`, nil, owner)
	if len(g.Errors) > 0 || bytes.Contains(g.Data, []byte(c.Secret)) || !bytes.Contains(g.Data, []byte(`"name":"ci"`)) {
		t.Fatalf("%+v %s", g.Errors, g.Data)
	}
	// A viewer can make read-only keys, sees only their own, cannot revoke others'.
	if _, err := s.App.Auth.Store.CreateUser(ctx, "viewer@example.com", "viewer-password", "viewer"); err != nil {
		t.Fatal(err)
	}
	viewer := s.Session(t, "viewer@example.com", "viewer-password")
	g = s.GraphQLWith(t, environment.Production, `mutation { createApiToken(input: {name: "v", environment: "production", scopes: ["all"]}) { secret } }`, nil, viewer)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "FORBIDDEN" {
		t.Fatalf("viewer made a write key: %s %+v", g.Data, g.Errors)
	}
	g = s.GraphQLWith(t, environment.Production, `mutation { createApiToken(input: {name: "v", environment: "production", scopes: ["read"]}) { secret } }`, nil, viewer)
	if len(g.Errors) > 0 {
		t.Fatalf("%+v", g.Errors)
	}
	g = s.GraphQLWith(t, environment.Production, `{ apiTokens { name } }`, nil, viewer)
	if string(g.Data) != `{"apiTokens":[{"name":"v"}]}` {
		t.Fatalf("%s", g.Data)
	}
	g = s.GraphQLWith(t, environment.Production, `mutation { revokeApiToken(id: "`+c.Token.ID+`") { id } }`, nil, viewer)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "NOT_FOUND" {
		t.Fatalf("viewer revoked another's key: %+v", g.Errors)
	}
	// An expiry, as the console sends it.
	g = s.GraphQLWith(t, environment.Production, `mutation($e: Time) { createApiToken(input: {name: "exp", environment: "production", scopes: ["hubs:read"], expiresAt: $e}) { token { expiresAt scopes } } }`,
		map[string]any{"e": "2099-01-01T23:59:59Z"}, owner)
	if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"expiresAt":"2099-01-01T23:59:59Z"`) {
		t.Fatalf("%+v %s", g.Errors, g.Data)
	}
	// Bad input.
	g = s.GraphQLWith(t, environment.Production, `mutation { createApiToken(input: {name: "x", environment: "staging", scopes: ["all"]}) { secret } }`, nil, owner)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_USER_INPUT" {
		t.Fatalf("%+v", g.Errors)
	}
	// Revoke: the key stops working at once.
	g = s.GraphQLWith(t, environment.Production, `mutation { revokeApiToken(id: "`+c.Token.ID+`") { revokedAt } }`, nil, owner)
	if len(g.Errors) > 0 {
		t.Fatalf("%+v", g.Errors)
	}
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/status", nil, apptest.Bearer(c.Secret)); r.StatusCode != 401 {
		t.Fatal(r.StatusCode)
	}
	// API keys cannot make keys.
	g = s.GraphQLWith(t, environment.Production, `mutation { createApiToken(input: {name: "k", environment: "production", scopes: ["all"]}) { secret } }`, nil, nil)
	if len(g.Errors) == 0 || g.Errors[0].Extensions["reason"] != "session_required" {
		t.Fatalf("%+v", g.Errors)
	}
}

func TestFirstStartCreatesOwner(t *testing.T) {
	cfg := app.Defaults()
	cfg.DB, cfg.SandboxDB = apptest.DSN(t, "production"), apptest.DSN(t, "sandbox")
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	open := func() {
		a, err := app.Open(context.Background(), cfg, log, app.Options{PasswordCost: bcrypt.MinCost})
		if err != nil {
			t.Fatal(err)
		}
		u := a.Envs.Production().DB.Client.User.Query().OnlyX(context.Background())
		if u.Email != "admin@localhost" || u.Role != "owner" {
			t.Fatalf("%+v", u)
		}
		a.Close()
	}
	open()
	open()
	if n := strings.Count(logs.String(), "password="); n != 1 {
		t.Fatalf("the generated password was logged %d times:\n%s", n, logs.String())
	}
	_ = io.Discard
}

// TestTokenCache: with --auth-cache-ttl, an instance trusts a verified key
// for that long. A revocation made through another instance (here: in the
// database directly) takes effect once the cached read is older than the
// TTL; one made through this instance, and expiry, take effect at once.
func TestTokenCache(t *testing.T) {
	const ttl = 2 * time.Second
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.AuthCacheTTL = ttl }})
	ctx := context.Background()
	store := s.App.Auth.Store
	var mu sync.Mutex
	now := time.Now().UTC()
	store.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	status := func(key string) int {
		return s.Do(t, "GET", s.URL+"/v1/status", nil, apptest.Bearer(key)).StatusCode
	}
	db := s.App.Envs.Production().DB.Client

	elsewhere := newKey(t, s, environment.Production, "all")
	if st := status(elsewhere); st != 200 {
		t.Fatal(st)
	}
	db.APIToken.Update().Where(apitoken.DisplayPrefix(elsewhere[:15])).SetRevokedAt(now).ExecX(ctx)
	advance(ttl / 2)
	if st := status(elsewhere); st != 200 {
		t.Fatalf("revoked elsewhere, within the TTL: %d, want 200 (the cached read)", st)
	}
	advance(ttl / 2)
	if st := status(elsewhere); st != 401 {
		t.Fatalf("revoked elsewhere, after the TTL: %d, want 401", st)
	}

	here := newKey(t, s, environment.Production, "all")
	if st := status(here); st != 200 {
		t.Fatal(st)
	}
	tok := db.APIToken.Query().Where(apitoken.DisplayPrefix(here[:15])).OnlyX(ctx)
	owner := &auth.Principal{Kind: auth.KindSession, Role: "owner"}
	if _, err := store.RevokeToken(ctx, owner, string(tok.ID)); err != nil {
		t.Fatal(err)
	}
	if n := store.RevokedInFlight(); n != 1 {
		t.Fatalf("%d keys marked revoked here, want 1", n)
	}
	if st := status(here); st != 401 {
		t.Fatalf("revoked through this instance: %d, want 401 at once", st)
	}
	// The revocation was read back: the key is cached as revoked, and no
	// longer kept in the set of keys to read every time.
	if n := store.RevokedInFlight(); n != 0 {
		t.Fatalf("%d keys still marked revoked here after the revocation was read", n)
	}
	advance(ttl / 4)
	if st := status(here); st != 401 {
		t.Fatalf("revoked key, cached: %d, want 401", st)
	}

	soon := now.Add(ttl / 4)
	expiring, _, err := store.CreateToken(ctx, auth.TokenInput{Name: "short", Environment: environment.Production, Scopes: []string{"all"}, ExpiresAt: &soon})
	if err != nil {
		t.Fatal(err)
	}
	if st := status(expiring); st != 200 {
		t.Fatal(st)
	}
	advance(ttl / 2)
	if st := status(expiring); st != 401 {
		t.Fatalf("expired while cached: %d, want 401", st)
	}
}
