package graph_test

import (
	"fmt"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// fixture creates records through the GraphQL mutations themselves.
type fixture struct {
	t   *testing.T
	srv *apptest.Server
	env environment.Name
}

func newFixture(t *testing.T, srv *apptest.Server, env environment.Name) *fixture {
	return &fixture{t: t, srv: srv, env: env}
}

func (f *fixture) id(mutation string, vars map[string]any) string {
	f.t.Helper()
	var out map[string]struct{ ID string }
	f.srv.MustGraphQL(f.t, f.env, mutation, vars, &out)
	for _, v := range out {
		return v.ID
	}
	f.t.Fatal("no id returned")
	return ""
}

func (f *fixture) hub(code, city, country string) string {
	return f.id(`mutation($in: CreateHubInput!) { createHub(input: $in) { id } }`, map[string]any{
		"in": map[string]any{"code": code, "name": city + " hub", "city": city, "country": country, "timezone": "Europe/Amsterdam"},
	})
}

func (f *fixture) part(sku, name string) string {
	return f.id(`mutation($in: CreatePartInput!) { createPart(input: $in) { id } }`, map[string]any{
		"in": map[string]any{"sku": sku, "partName": name, "unitWeightKg": "0.125"},
	})
}

func (f *fixture) item(partID, hubID string, qty string) string {
	return f.id(`mutation($in: CreateItemInput!) { createItem(input: $in) { id } }`, map[string]any{
		"in": map[string]any{"partID": partID, "hubID": hubID, "quantity": qty},
	})
}

func (f *fixture) order(hubID string, lines ...any) string {
	ls := []map[string]any{}
	for i := 0; i+1 < len(lines); i += 2 {
		ls = append(ls, map[string]any{"partID": lines[i], "quantity": lines[i+1]})
	}
	return f.id(`mutation($in: CreateOrderInput!, $lines: [OrderLineInput!]) { createOrder(input: $in, lines: $lines) { id } }`, map[string]any{
		"in": map[string]any{"hubID": hubID, "customerRef": fmt.Sprintf("C-%d", len(ls))}, "lines": ls,
	})
}

func (f *fixture) tracking(orderID, number, status string) string {
	return f.id(`mutation($in: CreateTrackingEntryInput!) { createTrackingEntry(input: $in) { id } }`, map[string]any{
		"in": map[string]any{"orderID": orderID, "trackingNumber": number, "carrier": "DHL", "status": status},
	})
}

// counted starts a server whose statements the returned counter counts,
// with a fixture in production and its hub AMS1.
func counted(t *testing.T) (*apptest.Server, *apptest.StatementCounter, *fixture, string) {
	counter := &apptest.StatementCounter{}
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	f := newFixture(t, srv, prod)
	return srv, counter, f, f.hub("AMS1", "Amsterdam", "NL")
}

// lineArgs creates the parts P-0… P-<n-1> and returns them as order's
// lines, each of quantity q.
func (f *fixture) lineArgs(n int, q string) []any {
	var lines []any
	for i := range n {
		lines = append(lines, f.part(fmt.Sprintf("P-%d", i), "Part "+fmt.Sprint(i)), q)
	}
	return lines
}
