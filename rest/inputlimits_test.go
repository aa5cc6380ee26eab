package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/filter"
)

// TestFilterLimits: an over-long or over-wide filter is a 400 naming the
// field, with the same problem document on SQLite and PostgreSQL (the suite
// runs once on each: the expected documents below are fixed, so both runs
// compare against the same text), and never a database error. The widest
// filter within the limits is answered on both.
func TestFilterLimits(t *testing.T) {
	s := apptest.New(t, apptest.Options{Log: testLog(t)})
	long := strings.Repeat("x", 50_001)
	in := func(field string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "&%s[]=v%d", field, i)
		}
		return b.String()[1:]
	}
	for _, tc := range []struct {
		name, url     string
		field, detail string
	}{
		{"long substring (SQLite: LIKE pattern too complex)", "/v1/parts?part_name=*" + long + "*", "part_name", "part_name: a filter value has at most 1000 characters"},
		{"long substring on an edge", "/v1/items?hub=*" + long + "*", "hub", "hub: a filter value has at most 1000 characters"},
		{"long exact value", "/v1/hubs?name=" + long, "name", "name: a filter value has at most 1000 characters"},
		{"long not-substring", "/v1/orders?customer_ref!=*" + long + "*", "customer_ref", "customer_ref: a filter value has at most 1000 characters"},
		{"wide IN", "/v1/parts?" + in("sku", filter.MaxValues+1), "sku", "sku: at most 100 values in one list"},
		{"wide NOT IN on an edge", "/v1/items?" + strings.ReplaceAll(in("hub", filter.MaxValues+1), "[]=", "[]!="), "hub", "hub: at most 100 values in one list"},
		{"too many conditions", "/v1/parts?" + strings.Repeat("part_name=*a*&", filter.MaxConditions) + "sku=b", "sku", "sku: at most 64 filters in one query"},
		{"long cursor", "/v1/parts?cursor=" + strings.Repeat("a", filter.MaxParamLength+1), "cursor", "cursor: has at most 2048 characters"},
		{"malformed limit", "/v1/parts?limit=0;x", "limit", "limit: must be an integer from 1 to 500"},
		{"limit with a sign", "/v1/parts?limit=+5", "limit", "limit: must be an integer from 1 to 500"},
		{"limit twice", "/v1/parts?limit=5&limit=6", "limit", "limit: is given more than once"},
		{"malformed sort", "/v1/parts?sort=sku;x", "sort", `sort: "sku;x" is not sortable; sortable fields: sku, part_name, unit, unit_weight_kg, created_at, updated_at`},
		{"sort twice", "/v1/parts?sort=sku&sort=-sku", "sort", "sort: is given more than once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, "GET", s.URL+tc.url, nil, nil)
			var p struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
				Errors []struct {
					Field string `json:"field"`
				} `json:"errors"`
			}
			r.JSON(t, &p)
			if r.StatusCode != http.StatusBadRequest || p.Detail != tc.detail || len(p.Errors) != 1 || p.Errors[0].Field != tc.field {
				t.Errorf("GET %.80s: %d %.300s\nwant 400 %q on %s", tc.url, r.StatusCode, r.Body, tc.detail, tc.field)
			}
		})
	}

	// The widest filter within the limits runs on both databases: 64
	// conditions, the IN and NOT IN lists full, the substrings as long as
	// allowed.
	var q []string
	for _, f := range []string{"sku", "part_name", "description"} {
		q = append(q, in(f, filter.MaxValues), strings.ReplaceAll(in(f, filter.MaxValues), "[]=", "[]!="))
	}
	for len(q) < filter.MaxConditions {
		q = append(q, "part_name!=*"+url.QueryEscape(strings.Repeat("é", filter.MaxValueLength))+"*")
	}
	r := s.Do(t, "GET", s.URL+"/v1/parts?"+strings.Join(q, "&"), nil, nil)
	var page struct {
		Data []any `json:"data"`
	}
	if r.StatusCode != http.StatusOK || json.Unmarshal(r.Body, &page) != nil {
		t.Errorf("widest allowed filter: %d %.300s", r.StatusCode, r.Body)
	}
}

// TestStrictBodies: a member given twice, text that is not UTF-8 and lone
// surrogate escapes are a 400 naming the member, and nothing is stored (with
// a replacement character or otherwise).
func TestStrictBodies(t *testing.T) {
	s := apptest.New(t, apptest.Options{Log: testLog(t)})
	h := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name, path, body, field, detail string
	}{
		{"duplicate member", "/v1/hubs", `{"code":"AMS1","name":"A","name":"B","address":{"country":"NL"}}`, "name", "name: is given more than once"},
		{"duplicate nested member", "/v1/hubs", `{"code":"AMS1","name":"A","address":{"country":"NL","country":"DE"}}`, "address.country", "address.country: is given more than once"},
		{"duplicate member in a line", "/v1/orders", `{"hub":"AMS1","lines":[{"sku":"X","quantity":1},{"sku":"X","quantity":1,"quantity":2}]}`, "lines[1].quantity", "lines[1].quantity: is given more than once"},
		{"lone surrogate", "/v1/parts", `{"sku":"X2","part_name":"a\ud800b"}`, "part_name", `part_name: holds \ud800, half of a UTF-16 surrogate pair`},
		{"invalid UTF-8", "/v1/parts", "{\"sku\":\"X2\",\"part_name\":\"a\xffb\"}", "", "the body is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, "POST", s.URL+tc.path, tc.body, h)
			var p struct {
				Detail string `json:"detail"`
				Errors []struct {
					Field string `json:"field"`
				} `json:"errors"`
			}
			r.JSON(t, &p)
			if r.StatusCode != http.StatusBadRequest || p.Detail != tc.detail || (tc.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != tc.field)) {
				t.Errorf("%d %s\nwant 400 %q", r.StatusCode, r.Body, tc.detail)
			}
		})
	}
	for _, path := range []string{"/v1/hubs", "/v1/parts", "/v1/orders"} {
		if r := s.Do(t, "GET", s.URL+path, nil, nil); !strings.Contains(string(r.Body), `"data":[]`) {
			t.Errorf("%s: something was stored: %s", path, r.Body)
		}
	}
	// A surrogate pair is one character, and allowed.
	if r := s.Do(t, "POST", s.URL+"/v1/parts", `{"sku":"X3","part_name":"\ud83d\ude00"}`, h); r.StatusCode != http.StatusCreated || !strings.Contains(string(r.Body), `"part_name":"😀"`) {
		t.Errorf("surrogate pair: %d %s", r.StatusCode, r.Body)
	}
}
