package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"logistics/internal/apptest"
)

// TestWriteAnswersFromItsEvent: a write answers with the resource as its
// event rendered it inside the transaction (view.Renderings), not with a
// second read after the commit, and that answer is byte for byte what a GET
// returns right after, ETag included.
func TestWriteAnswersFromItsEvent(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	must := func(method, path string, body any, want int) *apptest.Response {
		t.Helper()
		resp := srv.Do(t, method, srv.URL+path, body, nil)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
		}
		return resp
	}
	must(http.MethodPost, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	for _, sku := range []string{"P-1", "P-2"} {
		must(http.MethodPost, "/v1/parts", map[string]any{"sku": sku, "part_name": "Bolt " + sku}, http.StatusCreated)
		must(http.MethodPost, "/v1/items", map[string]any{"sku": sku, "hub": "AMS1", "quantity": 10}, http.StatusCreated)
	}
	var order struct{ ID string }
	must(http.MethodPost, "/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{
		map[string]any{"sku": "P-1", "quantity": 2}, map[string]any{"sku": "P-2", "quantity": 3}}}, http.StatusCreated).JSON(t, &order)
	var items struct{ Data []struct{ ID string } }
	must(http.MethodGet, "/v1/items?limit=1", nil, http.StatusOK).JSON(t, &items)
	item := items.Data[0]

	for _, tc := range []struct {
		name, method, path string
		body               any
		want               int
		get                func(body []byte) string // the resource's path
		table              string
	}{
		{"create order", http.MethodPost, "/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{map[string]any{"sku": "P-1", "quantity": 1}}},
			http.StatusCreated, idPath(t, "/v1/orders/"), "orders"},
		{"submit", http.MethodPost, "/v1/orders/" + order.ID + "/transitions", map[string]any{"transition": "submit"},
			http.StatusOK, func([]byte) string { return "/v1/orders/" + order.ID }, "orders"},
		{"allocate", http.MethodPost, "/v1/orders/" + order.ID + "/transitions", map[string]any{"transition": "allocate"},
			http.StatusOK, func([]byte) string { return "/v1/orders/" + order.ID }, "orders"},
		{"update order", http.MethodPatch, "/v1/orders/" + order.ID, map[string]any{"customer_ref": "C-9"},
			http.StatusOK, func([]byte) string { return "/v1/orders/" + order.ID }, "orders"},
		{"create tracking entry", http.MethodPost, "/v1/tracking-entries", map[string]any{"order_id": order.ID, "tracking_number": "T1",
			"carrier": "DHL", "status": "in_transit", "occurred_at": "2026-01-01T10:00:00Z"},
			http.StatusCreated, idPath(t, "/v1/tracking-entries/"), "tracking_entries"},
		{"update item", http.MethodPatch, "/v1/items/" + item.ID, map[string]any{"lot": "L-7"},
			http.StatusOK, func([]byte) string { return "/v1/items/" + item.ID }, "items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counter.Reset()
			resp := must(tc.method, tc.path, tc.body, tc.want)
			reread := regexp.MustCompile("FROM [`\"]" + tc.table + "[`\"]")
			for _, q := range counter.Outside() {
				if reread.MatchString(q) {
					t.Errorf("read %s again after the commit: %s", tc.table, q)
				}
			}
			get := must(http.MethodGet, tc.get(resp.Body), nil, http.StatusOK)
			if !bytes.Equal(resp.Body, get.Body) {
				t.Errorf("the answer is not what GET returns:\n%s\n%s", resp.Body, get.Body)
			}
			if a, b := resp.Header.Get("ETag"), get.Header.Get("ETag"); a == "" || a != b {
				t.Errorf("ETag %q, GET's %q", a, b)
			}
		})
	}
}

// idPath reads a created resource's id from its answer.
func idPath(t *testing.T, prefix string) func([]byte) string {
	return func(body []byte) string {
		var v struct{ ID string }
		if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
			t.Fatalf("no id in %s", body)
		}
		return prefix + v.ID
	}
}
