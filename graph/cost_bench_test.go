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
