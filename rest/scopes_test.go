package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// TestRoutesEnforceScopes: every /v1 route answers 401 without credentials
// and 403 insufficient_scope with a key lacking its scope, from the same
// policy table the GraphQL directive uses.
func TestRoutesEnforceScopes(t *testing.T) {
	srv := apptest.New(t)
	readHubs, _, err := srv.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{
		Name: "hubs reader", Environment: environment.Production, Scopes: []string{"hubs:read"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, path, scope string
		body                any
		wantWithReadHubs    int
	}{
		{"GET", "/v1/status", "", nil, 200},
		{"GET", "/v1/hubs", "hubs:read", nil, 200},
		{"POST", "/v1/hubs", "hubs:write", map[string]any{"code": "X1", "name": "x", "address": map[string]any{"country": "NL"}}, 403},
		{"GET", "/v1/parts", "parts:read", nil, 403},
		{"GET", "/v1/items", "items:read", nil, 403},
		{"GET", "/v1/orders", "orders:read", nil, 403},
		{"GET", "/v1/tracking-entries", "tracking:read", nil, 403},
		{"GET", "/v1/workflows", "workflows:read", nil, 403},
		{"GET", "/v1/events", "", nil, 200}, // the hub events only (the event rule)
		{"GET", "/v1/events?types[]=order.created", "orders:read", nil, 403},
		{"GET", "/v1/events?type=webhook_endpoint.disabled", "webhooks:read", nil, 403},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			anon := srv.Do(t, tc.method, srv.URL+tc.path, tc.body, apptest.Anonymous())
			if anon.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(anon.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("anonymous: %d %q %s", anon.StatusCode, anon.Header.Get("WWW-Authenticate"), anon.Body)
			}
			resp := srv.Do(t, tc.method, srv.URL+tc.path, tc.body, apptest.Bearer(readHubs))
			if resp.StatusCode != tc.wantWithReadHubs {
				t.Fatalf("hubs:read key: %d, want %d: %s", resp.StatusCode, tc.wantWithReadHubs, resp.Body)
			}
			if resp.StatusCode == http.StatusForbidden {
				h := resp.Header.Get("WWW-Authenticate")
				if !strings.Contains(h, `error="insufficient_scope"`) || (tc.scope != "" && !strings.Contains(h, tc.scope)) {
					t.Fatalf("WWW-Authenticate %q does not name %s", h, tc.scope)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
					t.Fatalf("403 as %s", ct)
				}
			}
		})
	}
}
