package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// fixture is a small world created through the REST API itself.
type fixture struct {
	s   *apptest.Server
	ids map[string]string // name → id
}

func (f *fixture) post(t *testing.T, path string, body any) map[string]any {
	t.Helper()
	resp := f.s.Do(t, "POST", f.s.URL+path, body, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, resp.Body)
	}
	var m map[string]any
	resp.JSON(t, &m)
	return m
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{s: apptest.New(t, apptest.Options{Log: testLog(t)}), ids: map[string]string{}}
	for _, h := range []map[string]any{
		{"code": "AMS1", "name": "Amsterdam One", "kind": "warehouse", "address": map[string]any{"line1": "Dock 1", "city": "Amsterdam", "postal_code": "1011", "country": "NL"}, "latitude": 52.37, "longitude": 4.89, "timezone": "Europe/Amsterdam"},
		{"code": "RTM2", "name": "Rotterdam Port", "kind": "port", "address": map[string]any{"city": "Rotterdam", "country": "NL"}, "latitude": 51.92},
		{"code": "BER3", "name": "Berlin Store", "kind": "store", "address": map[string]any{"city": "Berlin", "country": "DE"}, "active": false},
	} {
		f.ids[h["code"].(string)] = f.post(t, "/v1/hubs", h)["id"].(string)
	}
	for _, p := range []map[string]any{
		{"sku": "BOLT-M8", "part_name": "Hex Bolt M8", "unit": "ea", "unit_weight_kg": 0.012},
		{"sku": "NUT-M8", "part_name": "Nut M8", "unit": "ea", "unit_weight_kg": "0.004"},
		{"sku": "OIL-5L", "part_name": "Engine oil", "unit": "l", "unit_weight_kg": 4.5, "hazardous": true, "description": "Flammable"},
	} {
		f.ids[p["sku"].(string)] = f.post(t, "/v1/parts", p)["id"].(string)
	}
	for i, it := range []map[string]any{
		{"sku": "BOLT-M8", "hub": "AMS1", "quantity": 100, "lot": "L1"},
		{"sku": "BOLT-M8", "hub": "RTM2", "quantity": 5.5},
		{"sku": "NUT-M8", "hub": "AMS1", "quantity": "10", "status": "quarantined"},
		{"part_id": f.ids["OIL-5L"], "hub_id": f.ids["BER3"], "quantity": 0.1, "expires_at": "2030-01-01T00:00:00Z"},
		{"sku": "OIL-5L", "hub": "AMS1", "quantity": 10.001, "serial": "SN-9"},
	} {
		f.ids[fmt.Sprintf("item%d", i)] = f.post(t, "/v1/items", it)["id"].(string)
	}
	var order0 map[string]any
	for i, o := range []map[string]any{
		{"hub": "AMS1", "customer_ref": "ACME-1", "priority": "high", "ship_to": map[string]any{"name": "Acme", "city": "Utrecht", "country": "NL"}, "due_at": "2026-01-01T10:00:00Z",
			"lines": []map[string]any{{"sku": "BOLT-M8", "quantity": 2}, {"part_id": f.ids["NUT-M8"], "quantity": 2.5}}},
		{"hub": "RTM2", "customer_ref": "ACME-2", "lines": []map[string]any{{"sku": "OIL-5L", "quantity": 1}}},
		{"hub_id": f.ids["BER3"], "priority": "urgent", "ship_to": map[string]any{"country": "DE"}},
	} {
		m := f.post(t, "/v1/orders", o)
		f.ids[fmt.Sprintf("order%d", i)] = m["id"].(string)
		if i == 0 {
			order0 = m
		}
	}
	f.ids["line0"] = order0["lines"].([]any)[0].(map[string]any)["id"].(string)
	f.ids["line1"] = order0["lines"].([]any)[1].(map[string]any)["id"].(string)
	f.ids["workflow"] = order0["workflow"].(map[string]any)["id"].(string)
	for i, e := range []map[string]any{
		{"order_id": f.ids["order0"], "tracking_number": "TN1", "carrier": "DHL", "status": "label_created", "hub": "AMS1"},
		{"order_id": f.ids["order0"], "tracking_number": "TN1", "carrier": "DHL", "status": "in_transit", "location": "Utrecht", "occurred_at": "2025-06-01T12:00:00Z"},
		{"order_id": f.ids["order1"], "tracking_number": "TN2", "carrier": "UPS", "status": "delivered", "hub": "RTM2"},
	} {
		f.ids[fmt.Sprintf("trk%d", i)] = f.post(t, "/v1/tracking-entries", e)["id"].(string)
	}
	var evs struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	f.s.Do(t, "GET", f.s.URL+"/v1/events?limit=1", nil, nil).JSON(t, &evs)
	f.ids["event"] = evs.Data[0].ID
	return f
}

func (f *fixture) expand(s string) string {
	for k, v := range f.ids {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

func TestScenarios(t *testing.T) {
	f := newFixture(t)
	json415 := http.Header{"Content-Type": {"text/plain"}}
	for _, tc := range []struct {
		name       string
		method     string
		url        string
		body       any
		header     http.Header
		wantStatus int
		wantBody   string // substring
	}{
		{"status", "GET", "/v1/status", nil, nil, 200, `"api_version":"v1"`},
		{"openapi", "GET", "/v1/openapi.json", nil, nil, 200, `"openapi":"3.1.0"`},

		// hubs
		{"list hubs", "GET", "/v1/hubs", nil, nil, 200, `"code":"AMS1"`},
		{"hub address", "GET", "/v1/hubs/{AMS1}", nil, nil, 200, `"address":{"line1":"Dock 1","city":"Amsterdam","postal_code":"1011","country":"NL"}`},
		{"hub filter kind", "GET", "/v1/hubs?kind=port", nil, nil, 200, `"code":"RTM2"`},
		{"hub filter active", "GET", "/v1/hubs?active=false", nil, nil, 200, `"code":"BER3"`},
		{"hub bad bool", "GET", "/v1/hubs?active=maybe", nil, nil, 400, `"field":"active"`},
		{"hub bad enum", "GET", "/v1/hubs?kind=castle", nil, nil, 400, `"code":"invalid_parameter"`},
		{"hub unknown id", "GET", "/v1/hubs/hub_01JD3K0000000000000000000A", nil, nil, 404, `"code":"not_found"`},
		{"hub wrong prefix", "GET", "/v1/hubs/{BOLT-M8}", nil, nil, 404, `not found`},
		{"hub garbage id", "GET", "/v1/hubs/xyz", nil, nil, 404, `not found`},
		{"hub create invalid", "POST", "/v1/hubs", map[string]any{"code": "bad code", "name": "", "address": map[string]any{"country": "NL"}}, nil, 422, `"errors":[`},
		{"hub create duplicate", "POST", "/v1/hubs", map[string]any{"code": "AMS1", "name": "x", "address": map[string]any{"country": "NL"}}, nil, 409, `already_exists`},
		{"hub create unknown field", "POST", "/v1/hubs", map[string]any{"code": "X1", "name": "x", "colour": "red"}, nil, 400, `"field":"colour"`},
		{"hub create wrong type", "POST", "/v1/hubs", map[string]any{"code": 12}, nil, 400, `"field":"code"`},
		{"hub create nested wrong type", "POST", "/v1/hubs", map[string]any{"code": "X1", "address": map[string]any{"city": 5}}, nil, 400, `"field":"address.city"`},
		{"hub create not object", "POST", "/v1/hubs", `[1,2]`, http.Header{"Content-Type": {"application/json"}}, 400, `JSON object`},
		{"hub create bad json", "POST", "/v1/hubs", `{"code":`, http.Header{"Content-Type": {"application/json"}}, 400, `not valid JSON`},
		{"hub create empty", "POST", "/v1/hubs", ``, http.Header{"Content-Type": {"application/json"}}, 400, `empty`},
		{"hub create 415", "POST", "/v1/hubs", `{}`, json415, 415, `unsupported_media_type`},
		{"hub create 413", "POST", "/v1/hubs", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, http.Header{"Content-Type": {"application/json"}}, 413, `too_large`},
		{"hub 405", "PUT", "/v1/hubs", nil, nil, 405, `method_not_allowed`},
		{"hub patch", "PATCH", "/v1/hubs/{RTM2}", map[string]any{"name": "Rotterdam Two", "latitude": nil}, nil, 200, `"latitude":null`},
		{"hub patch 412", "PATCH", "/v1/hubs/{RTM2}", map[string]any{"name": "x"}, http.Header{"If-Match": {`"99"`}}, 412, `precondition_failed`},
		{"hub patch garbage if-match", "PATCH", "/v1/hubs/{RTM2}", map[string]any{"name": "x"}, http.Header{"If-Match": {`nope`}}, 412, `precondition_failed`},
		{"hub patch 404", "PATCH", "/v1/hubs/hub_01JD3K0000000000000000000A", map[string]any{"name": "x"}, nil, 404, `not_found`},
		{"hub delete referenced", "DELETE", "/v1/hubs/{AMS1}", nil, nil, 409, `still_referenced`},

		// parts
		{"parts substring (seed)", "GET", "/v1/parts?part_name=*bolt*", nil, nil, 200, `"sku":"BOLT-M8"`},
		{"substring escapes %", "GET", "/v1/parts?part_name=*%25*", nil, nil, 200, `"data":[]`},
		{"substring escapes _", "GET", "/v1/parts?part_name=*_*", nil, nil, 200, `"data":[]`},
		{"part decimal as number", "GET", "/v1/parts/{NUT-M8}", nil, nil, 200, `"unit_weight_kg":0.004`},
		{"parts hazardous", "GET", "/v1/parts?hazardous=true", nil, nil, 200, `"sku":"OIL-5L"`},
		{"part too precise", "POST", "/v1/parts", map[string]any{"sku": "X", "part_name": "x", "unit_weight_kg": 0.0001}, nil, 400, `"field":"unit_weight_kg"`},
		{"part bad unit", "POST", "/v1/parts", map[string]any{"sku": "X", "part_name": "x", "unit": "parsec"}, nil, 422, `"field":"unit"`},
		{"part delete with stock", "DELETE", "/v1/parts/{BOLT-M8}", nil, nil, 409, `still_referenced`},
		{"part patch", "PATCH", "/v1/parts/{OIL-5L}", map[string]any{"description": "Very flammable"}, nil, 200, `"revision":2`},

		// items
		{"items gte (seed)", "GET", "/v1/items?quantity>=10", nil, nil, 200, `"available_quantity":100`},
		{"items gte encoded", "GET", "/v1/items?quantity%3E%3D10", nil, nil, 200, `"quantity":10.001`},
		{"items hub IN (seed)", "GET", "/v1/items?hub[]=AMS1&hub[]=RTM2", nil, nil, 200, `"hub":{"id":"{RTM2}","code":"RTM2"}`},
		{"items render part", "GET", "/v1/items/{item0}", nil, nil, 200, `"part":{"id":"{BOLT-M8}","sku":"BOLT-M8"}`},
		{"items bad decimal", "GET", "/v1/items?quantity>abc", nil, nil, 400, `quantity: \"abc\" is not a decimal`},
		{"items unknown filter", "GET", "/v1/items?colour=red", nil, nil, 200, `"has_more":false`},
		{"items limit too big", "GET", "/v1/items?limit=501", nil, nil, 400, `"field":"limit"`},
		{"items limit zero", "GET", "/v1/items?limit=0", nil, nil, 400, `"field":"limit"`},
		{"items bad sort", "GET", "/v1/items?sort=lot", nil, nil, 400, `"field":"sort"`},
		{"items bad cursor", "GET", "/v1/items?cursor=abc", nil, nil, 400, `"field":"cursor"`},
		{"items NUL filter", "GET", "/v1/items?lot=%00", nil, nil, 400, `"field":"lot"`},
		{"items invalid UTF-8 filter", "GET", "/v1/items?lot=*%ff*", nil, nil, 400, `"field":"lot"`},
		{"hub NUL in body", "POST", "/v1/hubs", `{"code":"X\u0000","name":"x"}`, http.Header{"Content-Type": {"application/json"}}, 400, `"field":"code"`},
		{"bad idempotency key", "POST", "/v1/hubs", map[string]any{"code": "X"}, http.Header{"Idempotency-Key": {"caf\xc3\xa9"}}, 400, `Idempotency-Key`},
		{"lines of garbage order with key", "POST", "/v1/orders/%ff%00/lines", map[string]any{"sku": "NUT-M8"}, http.Header{"Idempotency-Key": {"k"}}, 404, `not_found`},
		{"items sort", "GET", "/v1/items?sort=-quantity&limit=1", nil, nil, 200, `"quantity":100`},
		{"item create unknown hub", "POST", "/v1/items", map[string]any{"sku": "BOLT-M8", "hub": "NOPE", "quantity": 1}, nil, 422, `"field":"hub"`},
		{"item create unknown sku", "POST", "/v1/items", map[string]any{"sku": "NOPE", "hub": "AMS1"}, nil, 422, `"field":"sku"`},
		{"item create no part", "POST", "/v1/items", map[string]any{"hub": "AMS1"}, nil, 422, `"field":"part_id"`},
		{"item create wrong-prefix part", "POST", "/v1/items", map[string]any{"part_id": "{AMS1}", "hub": "AMS1"}, nil, 400, `"field":"part_id"`},
		{"item create negative", "POST", "/v1/items", map[string]any{"sku": "BOLT-M8", "hub": "AMS1", "quantity": -1}, nil, 422, `"field":"quantity"`},
		{"item patch clear expiry", "PATCH", "/v1/items/{item3}", map[string]any{"expires_at": nil, "quantity": 0.3}, nil, 200, `"expires_at":null`},
		{"item patch bad time", "PATCH", "/v1/items/{item3}", map[string]any{"expires_at": "tomorrow"}, nil, 400, `"field":"expires_at"`},

		// orders
		{"orders status (seed)", "GET", "/v1/orders?status=open", nil, nil, 200, `"has_more":false`},
		{"orders hub IN (seed)", "GET", "/v1/orders?hub[]=AMS1&hub[]=RTM2", nil, nil, 200, `"customer_ref":"ACME-2"`},
		{"order lines inline", "GET", "/v1/orders/{order0}", nil, nil, 200, `"lines":[{`},
		{"order workflow", "GET", "/v1/orders/{order0}", nil, nil, 200, `"key":"fulfilment"`},
		{"orders due_at bad", "GET", "/v1/orders?due_at<yesterday", nil, nil, 400, `due_at`},
		{"orders due_at", "GET", "/v1/orders?due_at<2027-01-01T00:00:00Z", nil, nil, 200, `"customer_ref":"ACME-1"`},
		{"order create bad line", "POST", "/v1/orders", map[string]any{"hub": "AMS1", "lines": []map[string]any{{"sku": "BOLT-M8", "quantity": 0}}}, nil, 422, `lines[0].quantity`},
		{"order create line wrong type", "POST", "/v1/orders", map[string]any{"hub": "AMS1", "lines": []map[string]any{{"quantity": "x"}}}, nil, 400, `"field":"lines[0].quantity"`},
		{"order create unknown workflow", "POST", "/v1/orders", map[string]any{"hub": "AMS1", "workflow": "nope"}, nil, 422, `"field":"workflow"`},
		{"order patch lines refused", "PATCH", "/v1/orders/{order2}", map[string]any{"lines": []map[string]any{}}, nil, 400, `"field":"lines"`},
		{"order patch", "PATCH", "/v1/orders/{order2}", map[string]any{"customer_ref": "NEW", "ship_to": map[string]any{"city": "Berlin"}}, nil, 200, `"customer_ref":"NEW"`},
		{"order lines list", "GET", "/v1/orders/{order0}/lines?quantity>2", nil, nil, 200, `"quantity":2.5`},
		{"order lines of unknown order", "GET", "/v1/orders/ord_01JD3K0000000000000000000A/lines", nil, nil, 404, `not_found`},
		{"order line add", "POST", "/v1/orders/{order2}/lines", map[string]any{"sku": "NUT-M8", "quantity": 3}, nil, 201, `"quantity":3`},
		{"order line add to unknown", "POST", "/v1/orders/ord_01JD3K0000000000000000000A/lines", map[string]any{"sku": "NUT-M8", "quantity": 3}, nil, 404, `not_found`},
		{"order lines 405", "DELETE", "/v1/orders/{order0}/lines", nil, nil, 405, `method_not_allowed`},

		// tracking
		{"tracking by hub", "GET", "/v1/tracking-entries?hub=AMS1", nil, nil, 200, `"tracking_number":"TN1"`},
		{"order's latest tracking carries the hub code", "GET", "/v1/orders/{order1}", nil, nil, 200, `"status":"delivered","hub":{"id":"`},
		{"order's latest tracking hub code", "GET", "/v1/orders/{order1}", nil, nil, 200, `"code":"RTM2"},"location"`},
		{"tracking no hub renders null", "GET", "/v1/tracking-entries/{trk1}", nil, nil, 200, `"hub":null`},
		{"tracking status", "GET", "/v1/tracking-entries?status=delivered&carrier=*ups*", nil, nil, 200, `"tracking_number":"TN2"`},
		{"tracking bad status", "POST", "/v1/tracking-entries", map[string]any{"order_id": "{order0}", "tracking_number": "T", "carrier": "C", "status": "lost"}, nil, 422, `"field":"status"`},
		{"tracking unknown order", "POST", "/v1/tracking-entries", map[string]any{"order_id": "ord_01JD3K0000000000000000000A", "tracking_number": "T", "carrier": "C", "status": "in_transit"}, nil, 422, `"field":"order_id"`},
		{"tracking patch clear hub", "PATCH", "/v1/tracking-entries/{trk0}", map[string]any{"hub": nil}, nil, 200, `"hub":null`},
		{"tracking delete", "DELETE", "/v1/tracking-entries/{trk2}", nil, nil, 204, ``},
		{"tracking deleted", "GET", "/v1/tracking-entries/{trk2}", nil, nil, 404, `not_found`},

		// order lines
		{"order line get", "GET", "/v1/order-lines/{line0}", nil, nil, 200, `"order_id":"{order0}"`},
		{"order line patch", "PATCH", "/v1/order-lines/{line0}", map[string]any{"quantity": 4.25}, nil, 200, `"quantity":4.25`},
		{"order line patch zero", "PATCH", "/v1/order-lines/{line0}", map[string]any{"quantity": 0}, nil, 422, `"field":"quantity"`},
		{"order line patch unknown part", "PATCH", "/v1/order-lines/{line0}", map[string]any{"part_id": "prt_01JD3K0000000000000000000A"}, nil, 422, `"field":"part_id"`},
		{"order line patch part of the wrong type", "PATCH", "/v1/order-lines/{line0}", map[string]any{"part_id": "{order0}"}, nil, 400, `"field":"part_id"`},
		{"order line patch stale", "PATCH", "/v1/order-lines/{line0}", map[string]any{"quantity": 1}, http.Header{"If-Match": {`"1"`}}, 412, `precondition_failed`},
		{"order line delete", "DELETE", "/v1/order-lines/{line1}", nil, nil, 204, ``},
		{"order line deleted", "GET", "/v1/order-lines/{line1}", nil, nil, 404, `not_found`},
		{"order line wrong prefix", "GET", "/v1/order-lines/{order0}", nil, nil, 404, `not_found`},

		// deletes
		{"item delete", "DELETE", "/v1/items/{item4}", nil, nil, 204, ``},
		{"item deleted", "GET", "/v1/items/{item4}", nil, nil, 404, `not_found`},
		{"order delete (draft)", "DELETE", "/v1/orders/{order1}", nil, nil, 204, ``},
		{"order deleted", "GET", "/v1/orders/{order1}", nil, nil, 404, `not_found`},
		{"hub delete unreferenced", "POST", "/v1/hubs", map[string]any{"code": "TMP1", "name": "tmp", "address": map[string]any{"country": "NL"}}, nil, 201, `"code":"TMP1"`},
		{"part delete unknown", "DELETE", "/v1/parts/prt_01JD3K0000000000000000000A", nil, nil, 404, `not_found`},

		// environments are separate
		{"sandbox is empty", "GET", "/sandbox/v1/hubs", nil, nil, 200, `"data":[]`},
		{"sandbox does not see production ids", "GET", "/sandbox/v1/hubs/{AMS1}", nil, nil, 404, `not_found`},

		// workflows and events
		{"workflow get", "GET", "/v1/workflows/{workflow}", nil, nil, 200, `"built_in":true`},
		{"workflow wrong prefix", "GET", "/v1/workflows/{AMS1}", nil, nil, 404, `not_found`},
		{"event get", "GET", "/v1/events/{event}", nil, nil, 200, `"type":"hub.created"`},
		{"workflows", "GET", "/v1/workflows?key=fulfilment&latest=true", nil, nil, 200, `"initial_state":"draft"`},
		{"workflows bad version", "GET", "/v1/workflows?version>x", nil, nil, 400, `"field":"version"`},
		{"workflows PUT is 405", "PUT", "/v1/workflows", map[string]any{}, nil, 405, `method_not_allowed`},
		{"workflow invalid", "POST", "/v1/workflows", map[string]any{"key": "x", "states": []string{"a"}, "initial_state": "b", "transitions": []any{}}, nil, 422, `"field":"initial_state"`},
		{"events by type", "GET", "/v1/events?type=hub.created&sort=-created_at", nil, nil, 200, `"subject_id":"{BER3}"`},
		{"events by subject", "GET", "/v1/events?subject_id={AMS1}", nil, nil, 200, `"type":"hub.created"`},
		{"events bad time", "GET", "/v1/events?created_at>=now", nil, nil, 400, `"field":"created_at"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any = tc.body
			if m, ok := body.(map[string]any); ok {
				b, _ := json.Marshal(m)
				body = []byte(f.expand(string(b)))
				if tc.header == nil {
					tc.header = http.Header{}
				}
				if tc.header.Get("Content-Type") == "" {
					tc.header.Set("Content-Type", "application/json")
				}
			}
			resp := f.s.Do(t, tc.method, f.s.URL+f.expand(tc.url), body, tc.header)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(resp.Body), f.expand(tc.wantBody)) {
				t.Fatalf("%s %s = %d %s\nwant %d containing %s", tc.method, tc.url, resp.StatusCode, resp.Body, tc.wantStatus, f.expand(tc.wantBody))
			}
			if tc.wantStatus >= 400 {
				if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
					t.Errorf("Content-Type = %q", ct)
				}
			}
			if tc.wantStatus == 405 && resp.Header.Get("Allow") == "" {
				t.Errorf("405 without Allow")
			}
		})
	}
}

// testLog sends the server's log to the test log.
func testLog(t *testing.T) io.Writer { return logWriter{t} }

type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
