package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"logistics/internal/apperr"
)

func TestLimiterTokenBucket(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLimiter(2, 3) // 2 per second, burst 3
	l.Now = func() time.Time { return now }
	for i := range 3 {
		d := l.Allow("k")
		if !d.Allowed || d.Remaining != 2-i || d.Limit != 3 {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := l.Allow("k")
	if d.Allowed || d.RetryAfter != 500*time.Millisecond || d.Reset != 1500*time.Millisecond {
		t.Fatalf("4th request: %+v", d)
	}
	if !l.Allow("other").Allowed {
		t.Fatal("another key shares the bucket")
	}
	now = now.Add(500 * time.Millisecond)
	if d := l.Allow("k"); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after refill: %+v", d)
	}
	now = now.Add(time.Hour)
	if d := l.Allow("k"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("after an hour the bucket holds only the burst: %+v", d)
	}
	if ceilSeconds(1500*time.Millisecond) != 2 || ceilSeconds(0) != 0 {
		t.Fatal("ceilSeconds")
	}
}

func TestLimiterForgetsFullBuckets(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLimiter(1, 1)
	l.Now = func() time.Time { return now }
	l.Allow("a")
	now = now.Add(2 * time.Minute)
	l.Allow("b")
	if _, ok := l.buckets["a"]; ok {
		t.Fatal("the refilled bucket a is still kept")
	}
}

func TestParseScopes(t *testing.T) {
	all, err := ParseScopes([]string{"all"})
	if err != nil || len(all) != 18 || !slices.Equal(all, AllScopes()) || !slices.Contains(all, "webhooks:write") {
		t.Fatalf("all: %v %v", all, err)
	}
	got, err := ParseScopes([]string{" orders:write", "hubs:read", "orders:write", ""})
	if err != nil || !slices.Equal(got, []string{"hubs:read", "orders:write"}) {
		t.Fatalf("got %v %v", got, err)
	}
	for _, bad := range [][]string{{"hubs:delete"}, {}, {""}, {"admin"}} {
		if _, err := ParseScopes(bad); apperr.From(err).Kind != apperr.KindBadRequest {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if r, _ := ParseScopes([]string{"read"}); !slices.Equal(r, ReadScopes()) {
		t.Fatalf("read: %v", r)
	}
}

func TestPrincipalHas(t *testing.T) {
	p := &Principal{Scopes: []string{"orders:write", "hubs:read"}}
	for scope, want := range map[string]bool{
		"orders:write": true, "orders:read": true, "hubs:read": true, "hubs:write": false,
		"parts:read": false, "": true,
	} {
		if p.Has(scope) != want {
			t.Errorf("Has(%q) = %v", scope, !want)
		}
	}
	var nobody *Principal
	if nobody.Has("") {
		t.Error("nil principal has a scope")
	}
	if RoleScopes("viewer")[1] != "parts:read" || len(RoleScopes("member")) != 17 || slices.Contains(RoleScopes("member"), "graphql:adhoc") || !slices.Contains(RoleScopes("admin"), "graphql:adhoc") || slices.Contains(RoleScopes("viewer"), "graphql:adhoc") || !slices.Contains(RoleScopes("viewer"), "webhooks:read") || slices.Contains(RoleScopes("viewer"), "webhooks:write") {
		t.Error("RoleScopes")
	}
}

func TestTypeScopes(t *testing.T) {
	for typ, want := range map[string]string{
		"Hub": "hubs:read", "HubConnection": "hubs:read", "HubEdge": "hubs:read", "OrderLine": "orders:read",
		"OrderEvent": "orders:read", "TrackingEntry": "tracking:read", "WorkflowConnection": "workflows:read",
	} {
		got, ok := TypeScopes(typ)
		if !ok || len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v %v", typ, got, ok)
		}
	}
	// Events are guarded row by row, by their type (EventTypeScopes): the
	// type is known to the policy and needs no scope of its own.
	if got, ok := TypeScopes("Event"); !ok || len(got) != 0 {
		t.Errorf("Event: %v %v", got, ok)
	}
	if got, ok := TypeScopes("WebhookEndpoint"); !ok || !slices.Equal(got, []string{"webhooks:read"}) {
		t.Errorf("WebhookEndpoint: %v", got)
	}
	for _, typ := range []string{"String", "PageInfo", "ApiToken", "Account", "__Schema"} {
		if _, ok := TypeScopes(typ); ok {
			t.Errorf("%s is guarded", typ)
		}
	}
}

func TestRequireAndNeed(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := Need("orders:write", ok)
	for _, c := range []struct {
		name      string
		p         *Principal
		status    int
		challenge string
	}{
		{"anonymous", nil, 401, `Bearer realm="logistics"`},
		{"read only", &Principal{ID: "tok_1", Kind: KindToken, Scopes: []string{"orders:read"}}, 403,
			`Bearer realm="logistics", error="insufficient_scope", scope="orders:write"`},
		{"writer", &Principal{ID: "tok_2", Kind: KindToken, Scopes: []string{"orders:write"}}, 204, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/orders", nil)
			if c.p != nil {
				r = r.WithContext(NewContext(r.Context(), c.p))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.status || w.Header().Get("WWW-Authenticate") != c.challenge {
				t.Fatalf("%d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
			}
			if c.status >= 400 && w.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("content type %q", w.Header().Get("Content-Type"))
			}
		})
	}
	if err := Require(context.Background(), ""); apperr.From(err).Code != "missing_credentials" {
		t.Fatalf("Require without caller: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Need accepted an unknown scope")
		}
	}()
	Need("orders:delete", ok)
}

func TestPasswords(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil || h == "correct horse battery" {
		t.Fatal(err)
	}
	if !CheckPassword(h, "correct horse battery") || CheckPassword(h, "correct horse batterz") {
		t.Fatal("CheckPassword")
	}
	if _, err := HashPassword("short"); err == nil {
		t.Fatal("short password accepted")
	}
	if a, b := GeneratePassword(), GeneratePassword(); a == b || len(a) < 20 {
		t.Fatal("GeneratePassword")
	}
}
