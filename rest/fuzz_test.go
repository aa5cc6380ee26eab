package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// FuzzBodies sends arbitrary bodies to every write endpoint of a running
// server: whatever the input, the answer is never a 5xx.
func FuzzBodies(f *testing.F) {
	for _, s := range []string{
		`{"code":"AMS1","name":"A","address":{"country":"NL"}}`,
		`{"sku":"X","part_name":"x","unit_weight_kg":1e400}`,
		`{"sku":"X","hub":"AMS1","quantity":"0.0001"}`,
		`{"hub":"AMS1","lines":[{"sku":"X","quantity":1},null,{}]}`,
		`{"order_id":"ord_","status":"in_transit","occurred_at":"0000-01-01T00:00:00Z"}`,
		`{"latitude":1e309}`, `{"address":null}`, `{"lines":{}}`, `[]`, `null`, `"x"`, `{"a":{"b":[]}}`,
		`{"code":"` + strings.Repeat("Z", 300) + `"}`, `{"expires_at":"9999-12-31T23:59:59Z","quantity":-0}`,
		`{"due_at":"2025-01-01T00:00:00+25:00"}`, `{"name":"a\u0000b","code":"A\u0000"}`, `{"hub":"\u0000"}`, "{\"name\":\"\\ud800\"}", `{"quantity":1000000000000.001}`,
		`{"code":"A","code":"B"}`, `{"lines":[{"sku":"X","sku":"Y"}]}`, "{\"name\":\"\xff\"}", `{"part_name":"\ud83d\ude00\udc00"}`,
	} {
		f.Add(s)
	}
	s := apptest.New(f)
	// A little world for the bodies to refer to.
	for _, b := range []struct{ path, body string }{
		{"/v1/hubs", `{"code":"AMS1","name":"A","address":{"country":"NL"}}`},
		{"/v1/parts", `{"sku":"X","part_name":"x"}`},
		{"/v1/items", `{"sku":"X","hub":"AMS1","quantity":5}`},
		{"/v1/orders", `{"hub":"AMS1","lines":[{"sku":"X","quantity":1}]}`},
	} {
		if r := s.Do(f, "POST", s.URL+b.path, b.body, http.Header{"Content-Type": {"application/json"}}); r.StatusCode != http.StatusCreated {
			f.Fatalf("%s: %d %s", b.path, r.StatusCode, r.Body)
		}
	}
	paths := []string{"/v1/hubs", "/v1/parts", "/v1/items", "/v1/orders", "/v1/tracking-entries"}
	f.Fuzz(func(t *testing.T, body string) {
		h := http.Header{"Content-Type": {"application/json"}}
		for _, p := range paths {
			for _, m := range []string{"POST", "PATCH"} {
				url := s.URL + p
				if m == "PATCH" {
					// Not-found ids must still decode the body safely first or answer 404.
					url += "/x"
				}
				r := s.Do(t, m, url, body, h)
				if r.StatusCode >= 500 {
					t.Fatalf("%s %s %q: %d %s", m, p, body, r.StatusCode, r.Body)
				}
			}
		}
	})
}

// FuzzListQueries sends arbitrary query strings to every list endpoint of a
// running server (PostgreSQL too, with LOGISTICS_TEST_POSTGRES): never a 5xx.
func FuzzListQueries(f *testing.F) {
	for _, s := range []string{
		"quantity>=10", "hub[]=AMS1&hub[]=RTM2", "part_name=*bolt*", "lot=%00", "lot=%ff", "code=*%ff*",
		"sort=-quantity&limit=2", "cursor=x", "due_at<2025-01-01T00:00:00Z", "name>%c3%28", "latitude>1e308",
		"version>=2147483647", "expires_at<0001-01-01T00:00:00Z", "limit=500&sort=created_at,-updated_at",
		"limit=0;x", "sort=code;x", "limit=1&limit=2", "name=*" + strings.Repeat("x", 1001) + "*", "sku[]=a&sku[]=%ff",
	} {
		f.Add(s)
	}
	s := apptest.New(f)
	for _, b := range []struct{ path, body string }{
		{"/v1/hubs", `{"code":"AMS1","name":"A","address":{"country":"NL"}}`},
		{"/v1/parts", `{"sku":"X","part_name":"x"}`},
		{"/v1/items", `{"sku":"X","hub":"AMS1","quantity":5}`},
		{"/v1/orders", `{"hub":"AMS1","lines":[{"sku":"X","quantity":1}]}`},
	} {
		if r := s.Do(f, "POST", s.URL+b.path, b.body, http.Header{"Content-Type": {"application/json"}}); r.StatusCode != http.StatusCreated {
			f.Fatalf("%s: %d %s", b.path, r.StatusCode, r.Body)
		}
	}
	paths := []string{"/v1/hubs", "/v1/parts", "/v1/items", "/v1/orders", "/v1/tracking-entries", "/v1/workflows", "/v1/events"}
	f.Fuzz(func(t *testing.T, q string) {
		if strings.ContainsAny(q, "# \t\r\n") {
			return // not a query string a client can send
		}
		for _, p := range paths {
			req, err := http.NewRequest("GET", s.URL+p+"?"+q, nil)
			if err != nil {
				return
			}
			resp, err := s.Client.Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Fatalf("GET %s?%s: %d", p, q, resp.StatusCode)
			}
		}
	})
}
