package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"logistics/graph"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/filter"
)

// TestInputLimits: over-long strings, over-wide lists and over-deep or
// over-large where inputs are BAD_USER_INPUT naming the argument path,
// before anything executes (the fast path included), with the same answer
// on SQLite and PostgreSQL (the suite runs on each against these fixed
// expectations) — never a database error passed through.
func TestInputLimits(t *testing.T) {
	s := apptest.New(t)
	long := strings.Repeat("x", 50_001)
	list := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	quoted := func(i int) string { return fmt.Sprintf("%q", fmt.Sprint("v", i)) }
	nested := func(depth int) string {
		return strings.Repeat("{not: ", depth) + `{name: "x"}` + strings.Repeat("}", depth)
	}
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		field, msg  string
	}{
		{"long substring (SQLite: LIKE pattern too complex)", `{ hubs(where: {nameContainsFold: "` + long + `"}) { totalCount } }`, nil,
			"hubs.where.nameContainsFold", "a filter value has at most 1000 characters"},
		{"long substring in a variable", `query($w: HubWhereInput) { hubs(where: $w) { totalCount } }`, map[string]any{"w": map[string]any{"or": []any{map[string]any{"codeHasPrefix": long}}}},
			"hubs.where.or[0].codeHasPrefix", "a filter value has at most 1000 characters"},
		{"long value behind an alias, in an edge filter", `{ a: items(where: {hasPartWith: [{sku: "` + long + `"}]}) { totalCount } }`, nil,
			"a.where.hasPartWith[0].sku", "a filter value has at most 1000 characters"},
		{"wide IN (too many SQL variables)", `{ parts(where: {skuIn: ` + list(filter.MaxValues+1, quoted) + `}) { totalCount } }`, nil,
			"parts.where.skuIn", "at most 100 values in one list"},
		{"wide OR (Expression tree is too large)", `{ parts(where: {or: ` + list(filter.MaxValues+1, func(i int) string { return `{sku: "a"}` }) + `}) { totalCount } }`, nil,
			"parts.where.or", "at most 100 values in one list"},
		{"deep where", `{ hubs(where: ` + nested(graph.MaxWhereDepth) + `) { totalCount } }`, nil,
			"hubs.where" + strings.Repeat(".not", graph.MaxWhereDepth), "where inputs are nested at most 8 levels deep"},
		{"large where", `{ hubs(where: {and: ` + list(100, func(i int) string { return `{name: "a", code: "b"}` }) + `, or: ` + list(60, func(i int) string { return `{city: "c"}` }) + `}) { totalCount } }`, nil,
			"hubs.where.or[54]", "a where argument sets at most 256 fields at all levels together"},
		{"too many ids", `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": make([]string, graph.MaxInputList+1)},
			"nodes.ids", "at most 1000 values in one list"},
		{"long mutation string", `mutation($n: String!) { createHub(input: {code: "X1", name: $n, country: "NL"}) { id } }`, map[string]any{"n": strings.Repeat("n", graph.MaxInputString+1)},
			"createHub.input.name", "has at most 10000 characters"},
		{"in a fragment", `{ ...F } fragment F on Query { hubs(where: {name: "` + long + `"}) { totalCount } }`, nil,
			"hubs.where.name", "a filter value has at most 1000 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.GraphQL(t, environment.Production, tc.query, tc.vars)
			if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" || r.Errors[0].Message != tc.field+": "+tc.msg {
				t.Fatalf("%d %+v\nwant BAD_USER_INPUT %q", r.Status, r.Errors, tc.field+": "+tc.msg)
			}
			fields, _ := r.Errors[0].Extensions["fields"].([]any)
			if len(fields) != 1 || fields[0].(map[string]any)["field"] != tc.field {
				t.Errorf("extensions.fields = %v, want %s", r.Errors[0].Extensions["fields"], tc.field)
			}
			if len(r.Data) > 0 && string(r.Data) != "null" {
				t.Errorf("data = %s: the operation must not run", r.Data)
			}
		})
	}

	// The largest where input within the limits runs on both databases (and
	// through the fast path, which serves hubs): 100 lists of 100 values, 256
	// fields, long substrings.
	var and []string
	for i := range 84 {
		and = append(and, fmt.Sprintf(`{nameNotIn: %s, codeIn: %s, cityContainsFold: "%s"}`, list(filter.MaxValues, quoted), list(filter.MaxValues, quoted), strings.Repeat(fmt.Sprint(i%10), filter.MaxValueLength)))
	}
	q := `{ hubs(where: {and: [` + strings.Join(and, ",") + `], not: {nameContainsFold: "é"}}) { totalCount edges { node { id } } } }`
	if r := s.GraphQL(t, environment.Production, q, nil); len(r.Errors) > 0 || r.Status != http.StatusOK || !strings.Contains(string(r.Data), `"totalCount":0`) {
		t.Errorf("widest allowed where: %d %+v %s", r.Status, r.Errors, r.Data)
	}
}

// TestSurrogateEscapes: a \u escape of half a surrogate pair in the document
// is refused instead of becoming U+FFFD; an escaped backslash before "u" and
// block strings are text.
func TestSurrogateEscapes(t *testing.T) {
	s := apptest.New(t)
	r := s.GraphQL(t, environment.Production, `{ hubs(where: {name: "a\uD83D\uDE00"}) { totalCount } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, `\uD83D`) {
		t.Errorf("surrogate escape: %d %+v", r.Status, r.Errors)
	}
	for _, q := range []string{
		`{ hubs(where: {name: "a\\uD83D"}) { totalCount } }`,
		`{ hubs(where: {name: """a\uD83D"""}) { totalCount } }`,
		`{ hubs(where: {name: "a\u00e9😀"}) { totalCount } }`,
	} {
		if r := s.GraphQL(t, environment.Production, q, nil); len(r.Errors) > 0 {
			t.Errorf("%s: %+v", q, r.Errors)
		}
	}
}

// TestStrictGraphQLBodies: a body with two "query" members (which one would
// run?), a member of the variables given twice, variables holding half a
// surrogate pair, and text that is not UTF-8 are refused with 400 before
// anything runs; a document string that is not UTF-8 (GET) is BAD_USER_INPUT.
func TestStrictGraphQLBodies(t *testing.T) {
	s := apptest.New(t)
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/graphql-response+json"}}
	for _, tc := range []struct{ name, body, want string }{
		{"two queries", `{"query":"{ hubs { totalCount } }","query":"mutation { deleteHub(id: \"hub_x\") }"}`, "query: is given more than once"},
		{"duplicate variable", `{"query":"query($n: String!) { hubs(where: {name: $n}) { totalCount } }","variables":{"n":"a","n":"b"}}`, "variables.n: is given more than once"},
		{"lone surrogate in a variable", `{"query":"mutation($n: String!) { createHub(input: {code: \"X1\", name: $n, country: \"NL\"}) { id } }","variables":{"n":"a\udfffb"}}`, `variables.n: holds \udfff, half of a UTF-16 surrogate pair`},
		{"not UTF-8", "{\"query\":\"mutation { createHub(input: {code: \\\"X1\\\", name: \\\"\xfe\\\", country: \\\"NL\\\"}) { id } }\"}", "the body is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, "POST", s.URL+"/graphql", tc.body, h)
			var out struct {
				Data   any                `json:"data"`
				Errors []apptest.GQLError `json:"errors"`
			}
			r.JSON(t, &out)
			if r.StatusCode != http.StatusBadRequest || len(out.Errors) != 1 || !strings.HasSuffix(out.Errors[0].Message, tc.want) || out.Errors[0].Code() != "BAD_USER_INPUT" || out.Data != nil {
				t.Errorf("%d %s\nwant 400 BAD_USER_INPUT ending %q", r.StatusCode, r.Body, tc.want)
			}
		})
	}
	r := s.Do(t, "GET", s.URL+`/graphql?query=%7B+hubs(where:+%7Bname:+%22a%FFb%22%7D)+%7B+totalCount+%7D+%7D`, nil, h)
	if !strings.Contains(string(r.Body), `hubs.where.name: must be valid UTF-8 text`) || !strings.Contains(string(r.Body), "BAD_USER_INPUT") {
		t.Errorf("GET with a non-UTF-8 string: %d %s", r.StatusCode, r.Body)
	}
	if r := s.GraphQL(t, environment.Production, `{ hubs { totalCount } }`, nil); !strings.Contains(string(r.Data), `"totalCount":0`) {
		t.Errorf("something was stored: %s", r.Data)
	}
}

// TestValidationErrors: an invalid enum value lists the allowed values (a
// literal and a variable), and every invalid field of an input is reported
// at once with its GraphQL name.
func TestValidationErrors(t *testing.T) {
	s := apptest.New(t)
	for _, q := range []string{
		`mutation { createPart(input: {sku: "Y", partName: "y", unit: pcs}) { id } }`,
		`mutation($u: PartUnit) { createPart(input: {sku: "Y", partName: "y", unit: $u}) { id } }`,
	} {
		r := s.GraphQL(t, environment.Production, q, map[string]any{"u": "pcs"})
		if len(r.Errors) != 1 || !strings.HasSuffix(r.Errors[0].Message, "; allowed values: ea, kg, g, m, l, box, pallet") || r.Errors[0].Code() != "BAD_USER_INPUT" {
			t.Errorf("%s: %+v", q, r.Errors)
		}
	}
	r := s.GraphQL(t, environment.Production, `mutation { createHub(input: {code: "", name: "", country: "nl", postalCode: "123456789012345678901", timezone: "Mars"}) { id } }`, nil)
	want := "code: must not be empty; name: must not be empty; postalCode: is too long: at most 20 bytes; country: must be an ISO 3166-1 alpha-2 code such as NL; timezone: unknown IANA time zone"
	if len(r.Errors) != 1 || r.Errors[0].Message != want {
		t.Fatalf("%+v\nwant %q", r.Errors, want)
	}
	if fields, _ := r.Errors[0].Extensions["fields"].([]any); len(fields) != 5 || fields[2].(map[string]any)["field"] != "postalCode" {
		t.Errorf("fields = %v", r.Errors[0].Extensions["fields"])
	}
}
