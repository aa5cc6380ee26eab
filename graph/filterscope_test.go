package graph_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
)

// scopedKey makes a production API key with exactly the given scopes.
func scopedKey(t *testing.T, srv *apptest.Server, scopes ...string) http.Header {
	t.Helper()
	secret, _, err := srv.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{
		Name: strings.Join(scopes, " "), Environment: environment.Production, Scopes: scopes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return apptest.Bearer(secret)
}

// TestFilterNeedsScopeOfRelatedType: a hubs:read key
// must not learn whether orders with a customer reference exist through
// hubs(where: {hasOrdersWith: …}) { totalCount }, nor stock through
// hasItemsWith — at any depth of the filter (and/or/not) and of the query
// (nested connections), through the fast path and through gqlgen alone.
func TestFilterNeedsScopeOfRelatedType(t *testing.T) {
	srv := apptest.New(t)
	slow := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	f := newFixture(t, srv, environment.Production)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("BLT-1", "Bolt")
	f.item(part, hub, "10")
	f.order(hub, part, "2") // customerRef C-1

	hubsOnly := scopedKey(t, srv, "hubs:read")
	hubsItems := scopedKey(t, srv, "hubs:read", "items:read")
	hubsOrders := scopedKey(t, srv, "hubs:read", "orders:read")

	forbidden := []struct {
		name, query string
		key         http.Header
		scope       string
	}{
		{"hasOrdersWith", `{ hubs(where: {hasOrdersWith: [{customerRefHasPrefix: "C-"}]}) { totalCount } }`, hubsOnly, "orders:read"},
		{"hasItemsWith", `{ hubs(where: {hasItemsWith: [{quantityGT: 5}]}) { totalCount } }`, hubsOnly, "items:read"},
		{"hasOrders", `{ hubs(where: {hasOrders: true}) { totalCount } }`, hubsOnly, "orders:read"},
		{"inside or/not", `{ hubs(where: {or: [{code: "X"}, {not: {hasItemsWith: [{lot: "L"}]}}]}) { totalCount } }`, hubsOnly, "items:read"},
		{"inside and", `{ hubs(where: {and: [{code: "AMS1"}, {hasTrackingEntries: false}]}) { totalCount } }`, hubsOnly, "tracking:read"},
		{"two hops", `{ hubs(where: {hasItemsWith: [{hasPartWith: [{sku: "BLT-1"}]}]}) { totalCount } }`, hubsItems, "parts:read"},
		{"nested connection", `{ hubs { edges { node { items(where: {hasPartWith: [{skuHasPrefix: "BLT"}]}) { totalCount } } } } }`, hubsItems, "parts:read"},
		{"nested connection, variables", `query($w: OrderWhereInput) { hubs { edges { node { orders(where: $w) { totalCount } } } } }`, hubsOrders, "parts:read"},
	}
	vars := map[string]any{"w": map[string]any{"hasLinesWith": []any{map[string]any{"hasPartWith": []any{map[string]any{"sku": "BLT-1"}}}}}}
	for _, s := range []*apptest.Server{srv, slow} {
		name := "fast path"
		if s == slow {
			name = "gqlgen"
		}
		t.Run(name, func(t *testing.T) {
			for _, tc := range forbidden {
				var v map[string]any
				if strings.Contains(tc.query, "$w") {
					v = vars
				}
				r := s.GraphQLWith(t, environment.Production, tc.query, v, tc.key)
				if len(r.Errors) == 0 || r.Errors[0].Code() != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, tc.scope) {
					t.Errorf("%s: want FORBIDDEN naming %s, got %s %+v", tc.name, tc.scope, r.Data, r.Errors)
				}
				if strings.Contains(string(r.Data), "totalCount") {
					t.Errorf("%s: answered a count: %s", tc.name, r.Data)
				}
			}
			// The same filters with the related scope, and filters on the
			// hub's own fields, work.
			for _, ok := range []struct {
				query string
				key   http.Header
				want  string
			}{
				{`{ hubs(where: {code: "AMS1"}) { totalCount } }`, hubsOnly, `{"hubs":{"totalCount":1}}`},
				{`{ hubs(where: {hasOrdersWith: [{customerRefHasPrefix: "C-"}]}) { totalCount } }`, hubsOrders, `{"hubs":{"totalCount":1}}`},
				{`{ hubs(where: {not: {hasItemsWith: [{quantityGT: 5}]}}) { totalCount } }`, hubsItems, `{"hubs":{"totalCount":0}}`},
				// A nested connection's where: is applied (entgql used to drop it).
				{`{ hubs { edges { node { items(where: {quantityGT: 50}) { totalCount } } } } }`, hubsItems, `{"hubs":{"edges":[{"node":{"items":{"totalCount":0}}}]}}`},
				{`{ hubs { edges { node { items(where: {quantityGT: 5}) { totalCount edges { node { quantity } } } } } } }`, hubsItems, `{"hubs":{"edges":[{"node":{"items":{"totalCount":1,"edges":[{"node":{"quantity":10}}]}}}]}}`},
			} {
				r := s.GraphQLWith(t, environment.Production, ok.query, nil, ok.key)
				if len(r.Errors) > 0 || string(r.Data) != ok.want {
					t.Errorf("%s: got %s %+v, want %s", ok.query, r.Data, r.Errors, ok.want)
				}
			}
		})
	}
}

// TestNodeAnswersAlikeForForbiddenIDs: node and nodes say FORBIDDEN for an id
// of a type the key may not read whether or not it exists, so they cannot be
// used to probe which ids exist.
func TestNodeAnswersAlikeForForbiddenIDs(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, environment.Production)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("BLT-1", "Bolt")
	order := f.order(hub, part, "1")
	hubsOnly := scopedKey(t, srv, "hubs:read")
	unknownOrder := string(resourceid.New(resourceid.Order))
	for _, q := range []struct {
		query string
		vars  map[string]any
	}{
		{`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": order}},
		{`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": unknownOrder}},
		{`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{hub, order}}},
		{`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{hub, unknownOrder}}},
	} {
		r := srv.GraphQLWith(t, environment.Production, q.query, q.vars, hubsOnly)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, "orders:read") {
			t.Errorf("%v: want FORBIDDEN naming orders:read, got %s %+v", q.vars, r.Data, r.Errors)
		}
	}
	// What the key may read still resolves, and an unknown id of a readable
	// type is not found, as before.
	var got struct{ Node struct{ ID string } }
	r := srv.GraphQLWith(t, environment.Production, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": hub}, hubsOnly)
	if len(r.Errors) > 0 || json.Unmarshal(r.Data, &got) != nil || got.Node.ID != hub {
		t.Fatalf("own hub: %s %+v", r.Data, r.Errors)
	}
	r = srv.GraphQLWith(t, environment.Production, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": string(resourceid.New(resourceid.Hub))}, hubsOnly)
	if len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" {
		t.Fatalf("unknown hub: %s %+v", r.Data, r.Errors)
	}
}

// TestRESTFilterNeedsScopeOfRelatedType: the same rule for REST query-string
// filters, which build the same where inputs — hub[]=AMS1 on items filters
// through the hub relation and needs hubs:read, sku needs parts:read — and
// the OpenAPI document says so.
func TestRESTFilterNeedsScopeOfRelatedType(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, environment.Production)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("BLT-1", "Bolt")
	f.item(part, hub, "10")
	f.order(hub, part, "2")
	itemsOnly := scopedKey(t, srv, "items:read")
	itemsHubs := scopedKey(t, srv, "items:read", "hubs:read")
	ordersOnly := scopedKey(t, srv, "orders:read")
	for _, tc := range []struct {
		path  string
		key   http.Header
		want  int
		scope string
	}{
		{"/v1/items?hub[]=AMS1&hub[]=RTM2", itemsOnly, 403, "hubs:read"},
		{"/v1/items?hub!=AMS1", itemsOnly, 403, "hubs:read"},
		{"/v1/items?sku=BLT-1", itemsHubs, 403, "parts:read"},
		{"/v1/orders?hub=AMS1", ordersOnly, 403, "hubs:read"},
		{"/v1/tracking-entries?hub=AMS1", scopedKey(t, srv, "tracking:read"), 403, "hubs:read"},
		{"/v1/items?quantity>=1&hub_id=" + hub, itemsOnly, 200, ""},
		{"/v1/items?hub[]=AMS1&hub[]=RTM2", itemsHubs, 200, ""},
	} {
		resp := srv.Do(t, "GET", srv.URL+tc.path, nil, tc.key)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.path, resp.StatusCode, tc.want, resp.Body)
			continue
		}
		if tc.want == 403 {
			if h := resp.Header.Get("WWW-Authenticate"); !strings.Contains(h, `scope="`+tc.scope+`"`) {
				t.Errorf("%s: WWW-Authenticate %q does not name %s", tc.path, h, tc.scope)
			}
			continue
		}
		var body struct{ Data []any }
		resp.JSON(t, &body)
		if len(body.Data) != 1 {
			t.Errorf("%s: %d items, want 1", tc.path, len(body.Data))
		}
	}

	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				Scopes []string `json:"x-required-scopes"`
			}
		}
	}
	srv.Do(t, "GET", srv.URL+"/v1/openapi.json", nil, nil).JSON(t, &doc)
	want := map[string]string{"hub": "hubs:read", "hub[]": "hubs:read", "sku": "parts:read", "sku[]": "parts:read"}
	seen := 0
	for _, p := range doc.Paths["/v1/items"]["get"].Parameters {
		if w, ok := want[p.Name]; ok {
			seen++
			if len(p.Scopes) != 1 || p.Scopes[0] != w {
				t.Errorf("openapi: /v1/items %s needs %v, want %s", p.Name, p.Scopes, w)
			}
		} else if len(p.Scopes) > 0 {
			t.Errorf("openapi: /v1/items %s needs %v, want none", p.Name, p.Scopes)
		}
	}
	if seen != len(want) {
		t.Errorf("openapi: %d of the relation filters of /v1/items found", seen)
	}
}
