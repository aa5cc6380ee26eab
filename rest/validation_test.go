package rest_test

import (
	"net/http"
	"testing"

	"logistics/internal/apptest"
)

// TestValidationErrors: an invalid enum lists the allowed values, nested
// fields carry their full path (address.country, ship_to.country,
// lines[2].quantity) and every invalid field of a request is reported at
// once, on both databases.
func TestValidationErrors(t *testing.T) {
	s := apptest.New(t, apptest.Options{Log: testLog(t)})
	h := http.Header{"Content-Type": {"application/json"}}
	for _, b := range []struct{ path, body string }{
		{"/v1/hubs", `{"code":"AMS1","name":"A","address":{"country":"NL"}}`},
		{"/v1/parts", `{"sku":"X","part_name":"x"}`},
	} {
		if r := s.Do(t, "POST", s.URL+b.path, b.body, h); r.StatusCode != http.StatusCreated {
			t.Fatalf("%s: %d %s", b.path, r.StatusCode, r.Body)
		}
	}
	type fe struct{ Field, Message string }
	for _, tc := range []struct {
		name, method, path, body string
		want                     []fe
	}{
		{"enum lists its values", "POST", "/v1/parts", `{"sku":"Y","part_name":"y","unit":"pcs"}`,
			[]fe{{"unit", `"pcs" is not one of the allowed values: ea, kg, g, m, l, box, pallet`}}},
		{"every field at once", "POST", "/v1/parts", `{"sku":"","part_name":"","unit":"pcs"}`,
			[]fe{{"sku", "must not be empty"}, {"part_name", "must not be empty"}, {"unit", `"pcs" is not one of the allowed values: ea, kg, g, m, l, box, pallet`}}},
		{"nested hub address", "POST", "/v1/hubs", `{"code":"bad code","name":"B","kind":"castle","address":{"country":"nl","postal_code":"123456789012345678901"}}`,
			[]fe{{"code", "must be upper-case letters, digits, - or _, e.g. AMS1"}, {"kind", `"castle" is not one of the allowed values: warehouse, cross_dock, store, port`},
				{"address.postal_code", "is too long: at most 20 bytes"}, {"address.country", "must be an ISO 3166-1 alpha-2 code such as NL"}}},
		{"nested hub address on update", "PATCH", "/v1/hubs/{hub}", `{"address":{"country":"nl"},"timezone":"Mars/Olympus"}`,
			[]fe{{"address.country", "must be an ISO 3166-1 alpha-2 code such as NL"}, {"timezone", "unknown IANA time zone"}}},
		{"order, ship_to and lines at once", "POST", "/v1/orders", `{"hub":"AMS1","priority":"asap","ship_to":{"country":"nl"},"lines":[{"sku":"X","quantity":1},{"sku":"X","quantity":1},{"sku":"X","quantity":-1},{"sku":"NOPE","quantity":1}]}`,
			[]fe{{"lines[3].sku", `no part has the SKU "NOPE"`}, {"priority", `"asap" is not one of the allowed values: low, normal, high, urgent`},
				{"ship_to.country", "must be an ISO 3166-1 alpha-2 code such as NL"}, {"lines[2].quantity", "must be greater than 0"}}},
		{"unknown hub and SKU with the rest", "POST", "/v1/orders", `{"hub":"NOPE","priority":"asap","lines":[{"sku":"X","quantity":0},{"sku":"NOPE","quantity":1}]}`,
			[]fe{{"hub", `no hub has the code "NOPE"`}, {"lines[1].sku", `no part has the SKU "NOPE"`}, {"priority", `"asap" is not one of the allowed values: low, normal, high, urgent`},
				{"lines[0].quantity", "must be greater than 0"}}},
		{"order update", "PATCH", "/v1/orders/{order}", `{"priority":"asap","ship_to":{"country":"nl"}}`,
			[]fe{{"priority", `"asap" is not one of the allowed values: low, normal, high, urgent`}, {"ship_to.country", "must be an ISO 3166-1 alpha-2 code such as NL"}}},
		{"item", "POST", "/v1/items", `{"sku":"X","hub":"AMS1","quantity":1,"status":"lost"}`,
			[]fe{{"status", `"lost" is not one of the allowed values: available, quarantined, damaged`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if tc.method == "PATCH" {
				var list struct {
					Data []struct {
						ID string `json:"id"`
					} `json:"data"`
				}
				base := path[:len(path)-len("/{hub}")]
				if path[len(path)-7:] == "{order}" {
					base = path[:len(path)-len("/{order}")]
					s.Do(t, "POST", s.URL+base, `{"hub":"AMS1"}`, h)
				}
				s.Do(t, "GET", s.URL+base, nil, nil).JSON(t, &list)
				path = base + "/" + list.Data[0].ID
			}
			r := s.Do(t, tc.method, s.URL+path, tc.body, h)
			var p struct {
				Errors []fe `json:"errors"`
			}
			r.JSON(t, &p)
			if r.StatusCode != http.StatusUnprocessableEntity || len(p.Errors) != len(tc.want) {
				t.Fatalf("%d %s\nwant 422 with %v", r.StatusCode, r.Body, tc.want)
			}
			for i := range tc.want {
				if p.Errors[i] != tc.want[i] {
					t.Errorf("error %d = %v, want %v", i, p.Errors[i], tc.want[i])
				}
			}
		})
	}
}
