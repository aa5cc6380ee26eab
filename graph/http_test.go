package graph_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// TestGraphQLOverHTTP checks the status codes and media types that the
// GraphQL-over-HTTP specification and the product contract require.
func TestGraphQLOverHTTP(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: nil})
	gql := srv.URL + "/graphql"
	const (
		gqlResp = "application/graphql-response+json"
		jsonT   = "application/json"
	)
	get := func(q string) string { return gql + "?query=" + url.QueryEscape(q) }
	for _, tc := range []struct {
		name, method, url, contentType, accept, body string
		wantStatus                                   int
		wantType                                     string
		wantBody                                     string
	}{
		{"POST query", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs { totalCount } }"}`, 200, gqlResp, `"totalCount":0`},
		{"GET query", "GET", get("{ hubs { totalCount } }"), "", gqlResp, "", 200, gqlResp, `"totalCount":0`},
		{"GET mutation is 405", "GET", get(`mutation { deleteHub(id: "hub_x") }`), "", gqlResp, "", 405, gqlResp, "POST"},
		{"unparsable document", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs {"}`, 400, gqlResp, "BAD_USER_INPUT"},
		{"invalid document", "POST", gql, jsonT, gqlResp, `{"query":"{ nope }"}`, 400, gqlResp, "GRAPHQL_VALIDATION_FAILED"},
		{"unparsable body", "POST", gql, jsonT, gqlResp, `{"query":`, 400, gqlResp, "BAD_USER_INPUT"},
		{"body not an object", "POST", gql, jsonT, gqlResp, `[1,2]`, 400, gqlResp, "BAD_USER_INPUT"},
		{"no query", "POST", gql, jsonT, gqlResp, `{}`, 400, gqlResp, "query"},
		{"variables of the wrong type are 400", "POST", gql, jsonT, gqlResp, `{"query":"query($n: Int) { hubs(first: $n) { totalCount } }","variables":{"n":"x"}}`, 400, gqlResp, "BAD_USER_INPUT"},
		{"an unknown operation name is 400", "POST", gql, jsonT, gqlResp, `{"query":"query A { hubs { totalCount } }","operationName":"B"}`, 400, gqlResp, "BAD_USER_INPUT"},
		{"a missing required variable is 400", "POST", gql, jsonT, gqlResp, `{"query":"query($id: ID!) { node(id: $id) { id } }"}`, 400, gqlResp, "BAD_USER_INPUT"},
		{"legacy: variables of the wrong type are 200", "POST", gql, jsonT, jsonT, `{"query":"query($n: Int) { hubs(first: $n) { totalCount } }","variables":{"n":"x"}}`, 200, jsonT, "BAD_USER_INPUT"},
		{"legacy: invalid document is 200", "POST", gql, jsonT, jsonT, `{"query":"{ nope }"}`, 200, jsonT, "GRAPHQL_VALIDATION_FAILED"},
		{"legacy: unparsable document is 200", "POST", gql, jsonT, jsonT, `{"query":"{ hubs {"}`, 200, jsonT, "BAD_USER_INPUT"},
		{"legacy: malformed body is 400", "POST", gql, jsonT, jsonT, `nope`, 400, jsonT, "BAD_USER_INPUT"},
		{"no Accept means application/json", "POST", gql, jsonT, "", `{"query":"{ hubs { totalCount } }"}`, 200, jsonT, `"totalCount"`},
		{"wildcard Accept means application/json", "POST", gql, jsonT, "*/*", `{"query":"{ hubs { totalCount } }"}`, 200, jsonT, `"totalCount"`},
		{"application/* means application/json", "POST", gql, jsonT, "application/*", `{"query":"{ nope }"}`, 200, jsonT, "GRAPHQL_VALIDATION_FAILED"},
		{"explicit graphql-response+json beside a wildcard", "POST", gql, jsonT, "*/*, " + gqlResp, `{"query":"{ nope }"}`, 400, gqlResp, "GRAPHQL_VALIDATION_FAILED"},
		{"preferred application/json", "POST", gql, jsonT, gqlResp + ";q=0.5, " + jsonT, `{"query":"{ nope }"}`, 200, jsonT, "GRAPHQL_VALIDATION_FAILED"},
		{"too many fields", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs { ` + strings.Repeat("totalCount ", 501) + `} }"}`, 400, gqlResp, "FIELD_LIMIT_EXCEEDED"},
		{"unacceptable Accept", "POST", gql, jsonT, "text/html", `{"query":"{ hubs { totalCount } }"}`, 406, jsonT, "Accept"},
		{"non-JSON content type", "POST", gql, "text/plain", gqlResp, `{ hubs { totalCount } }`, 415, gqlResp, "application/json"},
		{"PUT is 405", "PUT", gql, jsonT, gqlResp, `{"query":"{ hubs { totalCount } }"}`, 405, gqlResp, "GET"},
		{"too deep", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs { edges { node { items { edges { node { hub { items { edges { node { hub { items { edges { node { id } } } } } } } } } } } } } } }"}`, 400, gqlResp, "DEPTH_LIMIT_EXCEEDED"},
		{"too complex", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs(first: 500) { edges { node { items(first: 500) { edges { node { id quantity } } } } } } }"}`, 400, gqlResp, "COMPLEXITY"},
		{"introspection on", "POST", gql, jsonT, gqlResp, `{"query":"{ __schema { queryType { name } } }"}`, 200, gqlResp, `"Query"`},
		{"body over 1 MiB", "POST", gql, jsonT, gqlResp, `{"query":"{ hubs { totalCount } }","x":"` + strings.Repeat("a", 1<<20) + `"}`, 413, gqlResp, "larger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			if tc.accept != "" {
				h.Set("Accept", tc.accept)
			}
			var body any
			if tc.body != "" {
				body = tc.body
			}
			resp := srv.Do(t, tc.method, tc.url, body, h)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, resp.Body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.wantType) {
				t.Fatalf("Content-Type %q, want %s", ct, tc.wantType)
			}
			if !strings.Contains(string(resp.Body), tc.wantBody) {
				t.Fatalf("body lacks %q: %s", tc.wantBody, resp.Body)
			}
			// A request that fails before execution has no data entry;
			// one that executed has one, and its cost.
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(resp.Body, &keys); err != nil {
				t.Fatalf("not JSON: %s", resp.Body)
			}
			_, hasData := keys["data"]
			if executed := strings.Contains(string(resp.Body), `"totalCount"`) || strings.Contains(string(resp.Body), `"Query"`); hasData != executed {
				t.Fatalf("data entry %v, want %v: %s", hasData, executed, resp.Body)
			}
			if _, hasCost := keys["extensions"]; hasData && !hasCost {
				t.Fatalf("no extensions.cost: %s", resp.Body)
			}
		})
	}
}

// TestNoInputYieldsA500 throws malformed documents, variables and bodies at
// the endpoint: every answer is a 2xx or 4xx.
func TestNoInputYieldsA500(t *testing.T) {
	srv := apptest.New(t)
	bodies := []string{
		``, `null`, `"x"`, `{"query":null}`, `{"query":1}`, `{"query":"{","variables":[]}`,
		`{"query":"query($id: ID!) { node(id: $id) { id } }","variables":{"id":null}}`,
		`{"query":"query($id: ID!) { node(id: $id) { id } }","variables":{"id":{"a":1}}}`,
		`{"query":"{ node(id: \"\") { id } }"}`,
		`{"query":"{ node(id: \"hub_\") { id } }"}`,
		`{"query":"{ nodes(ids: [\"hub_1\", \"itm_2\", \"x\"]) { id } }"}`,
		`{"query":"{ hubs(after: \"not-a-cursor\") { totalCount } }"}`,
		`{"query":"{ hubs(first: -1) { totalCount } }"}`,
		`{"query":"{ items(where: {quantityGT: \"abc\"}) { totalCount } }"}`,
		`{"query":"{ items(where: {quantityGT: 1e308}) { totalCount } }"}`,
		`{"query":"mutation { createItem(input: {partID: \"\", hubID: \"\", quantity: 1}) { id } }"}`,
		`{"query":"mutation { updateHub(id: \"itm_01JD3K0000000000000000000A\", input: {}) { id } }"}`,
		`{"query":"mutation { deleteOrder(id: \"ord_nope\") }"}`,
		`{"query":"fragment A on Hub { ...B } fragment B on Hub { ...A } { hubs { edges { node { ...A } } } }"}`,
		`{"query":"{ hubs { totalCount } }","operationName":"nope"}`,
		`{"query":"` + strings.Repeat("{ hubs ", 500) + `"}`,
	}
	for i, b := range bodies {
		for _, accept := range []string{"application/json", "application/graphql-response+json"} {
			resp := srv.Do(t, "POST", srv.URL+"/graphql", b, http.Header{"Content-Type": {"application/json"}, "Accept": {accept}})
			if resp.StatusCode >= 500 {
				t.Errorf("body %d (%s): status %d: %s", i, b[:min(len(b), 80)], resp.StatusCode, resp.Body)
			}
			if strings.Contains(string(resp.Body), `"INTERNAL"`) {
				t.Errorf("body %d (%s): internal error: %s", i, b[:min(len(b), 80)], resp.Body)
			}
		}
	}
}
