package graph

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"logistics/graph/generated"
)

// BenchmarkOperationCost measures the cost model's work per request for
// the W1 query of bench/ (a variable page size: not cached), and for the
// same query with a literal page size (cached per operation).
//
//	go test -run '^$' -bench OperationCost ./graph
func BenchmarkOperationCost(b *testing.B) {
	const w1 = `query W1($first: Int!) {
  items(first: $first, where: {quantityGT: 100, hasHubWith: [{codeIn: ["AMS1", "RTM2"]}]}) {
    edges { node { id quantity reservedQuantity availableQuantity lot serial status expiresAt createdAt updatedAt
      part { id sku } hub { code } } }
    pageInfo { hasNextPage endCursor }
  }
}`
	s := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	c := newCostLimits(s, DefaultOptions)
	for _, tc := range []struct{ name, query, vars string }{
		{"W1 with $first", w1, `{"first": 50}`},
		{"W1 with first: 50", `query W1 { items(first: 50, where: {quantityGT: 100}) { edges { node { id quantity part { id sku } hub { code } } } pageInfo { hasNextPage endCursor } } }`, `{}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			doc, err := parser.ParseQuery(&ast.Source{Input: tc.query})
			if err != nil {
				b.Fatal(err)
			}
			if errs := validator.ValidateWithRules(s, doc, nil); len(errs) > 0 {
				b.Fatal(errs)
			}
			var vars map[string]any
			if err := json.Unmarshal([]byte(tc.vars), &vars); err != nil {
				b.Fatal(err)
			}
			rc := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: vars}
			b.ReportAllocs()
			for b.Loop() {
				if c.operationCost(rc) <= 0 {
					b.Fatal("no cost")
				}
			}
		})
	}
}

// TestOperationCostOncePerValues: an operation is priced by walking it once
// per instance, and once per value of the variables its cost reads (a page
// size): the same request again, as a trusted document's are, is not walked
// again, and every cached cost is the one a walk gives.
func TestOperationCostOncePerValues(t *testing.T) {
	s := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	c := newCostLimits(s, DefaultOptions)
	parse := func(q string) *ast.QueryDocument {
		doc, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			t.Fatal(err)
		}
		if errs := validator.ValidateWithRules(s, doc, nil); len(errs) > 0 {
			t.Fatal(errs)
		}
		return doc
	}
	paged := parse(`query P($first: Int!, $inner: Int) { orders(first: $first) { edges { node { id trackingEntries(first: $inner) { edges { node { id } } } } } } }`)
	static := parse(`query S { orders(first: 7) { edges { node { id } } } }`)
	walk := func(doc *ast.QueryDocument, vars map[string]any) int {
		w := costWalk{plan: c.plan, frags: doc.Fragments, vars: vars}
		return w.set(doc.Operations[0].SelectionSet, nil, false, 0)
	}
	for i, tc := range []struct {
		doc   *ast.QueryDocument
		vars  map[string]any
		walks int64 // after this request
	}{
		{paged, map[string]any{"first": int64(50), "inner": int64(3)}, 1},
		{paged, map[string]any{"first": int64(50), "inner": int64(3)}, 1},
		{paged, map[string]any{"first": int64(10), "inner": int64(3)}, 2},
		{paged, map[string]any{"first": int64(50), "inner": nil}, 3},
		{paged, map[string]any{"first": int64(50)}, 3}, // absent is null
		{paged, map[string]any{"first": int64(10), "inner": int64(3)}, 3},
		{paged, map[string]any{"first": int64(50), "inner": int64(3)}, 3},
		{static, nil, 4},
		{static, nil, 4},
	} {
		rc := &graphql.OperationContext{Doc: tc.doc, Operation: tc.doc.Operations[0], Variables: tc.vars}
		got := c.operationCost(rc)
		if want := walk(tc.doc, tc.vars); got != want {
			t.Errorf("request %d: cost %d, a walk gives %d", i, got, want)
		}
		if n := c.walks.Load(); n != tc.walks {
			t.Errorf("request %d: %d walks, want %d", i, n, tc.walks)
		}
	}
	if a, b := walk(paged, map[string]any{"first": int64(50), "inner": int64(3)}), walk(paged, map[string]any{"first": int64(10), "inner": int64(3)}); a == b {
		t.Errorf("the page size does not change the cost (%d): the test shows nothing", a)
	}
}
