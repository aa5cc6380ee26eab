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
