package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// depthLimit refuses operations nested deeper than max. Introspection counts
// too, except __Type.ofType: the chain of a type's wrappers ([Hub!]! is
// three deep) that every introspection query spells out to some fixed depth,
// and that cannot nest a list (its cost is counted like any field's).
type depthLimit struct{ max int }

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (d depthLimit) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if d.max <= 0 || rc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(rc.Operation.SelectionSet, rc.Doc.Fragments, 0, map[string]bool{}); depth > d.max {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("the operation is nested %d levels deep; the limit is %d", depth, d.max),
			Extensions: map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"},
		}
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, depth int, seen map[string]bool) int {
	deepest := depth
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			next := depth + 1
			if s.Name == "ofType" && s.ObjectDefinition != nil && s.ObjectDefinition.Name == "__Type" {
				next = depth
			}
			d = selectionDepth(s.SelectionSet, frags, next, seen)
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, depth, seen)
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue // cycles are refused by validation; do not loop
			}
			f := frags.ForName(s.Name)
			if f == nil {
				continue
			}
			seen[s.Name] = true
			d = selectionDepth(f.SelectionSet, frags, depth, seen)
			delete(seen, s.Name)
		}
		deepest = max(deepest, d)
	}
	return deepest
}
