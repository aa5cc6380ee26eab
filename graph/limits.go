package graph

import (
	"context"
	"fmt"
	"reflect"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/graph/generated"
)

// depthLimit refuses operations nested deeper than max. The introspection
// fields (__schema, __type) are not counted: GraphiQL's own query is deep.
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
			if s.Name == "__schema" || s.Name == "__type" {
				continue
			}
			d = selectionDepth(s.SelectionSet, frags, depth+1, seen)
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

// costConnections makes every connection field cost its page size times the
// cost of what it selects, so that nested pages cannot multiply unseen.
// Fields are found by shape, so new connections are covered automatically:
// a complexity function whose arguments are (childComplexity, after, first,
// before, last, …) is a Relay connection.
func costConnections(root *generated.ComplexityRoot) {
	intPtr := reflect.TypeFor[*int]()
	rv := reflect.ValueOf(root).Elem()
	for i := range rv.NumField() {
		obj := rv.Field(i)
		if obj.Kind() != reflect.Struct {
			continue
		}
		for j := range obj.NumField() {
			f := obj.Field(j)
			ft := f.Type()
			if ft.Kind() != reflect.Func || ft.NumIn() < 5 || ft.In(2) != intPtr || ft.In(4) != intPtr {
				continue
			}
			f.Set(reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
				child := int(args[0].Int())
				n := DefaultPageSize
				for _, a := range []reflect.Value{args[2], args[4]} {
					if !a.IsNil() {
						n = int(a.Elem().Int())
					}
				}
				n = max(n, 1)
				return []reflect.Value{reflect.ValueOf(1 + n*child)}
			}))
		}
	}
}
