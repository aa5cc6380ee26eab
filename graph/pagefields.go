package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// withoutNodeFields returns ctx with a field context, for a connection's
// Paginate, whose selection under edges.node has none of the fields named
// in accept, and those fields as collected; nil fields (and ctx unchanged)
// when there are none, when one of them is not accepted, or when the path
// connection → edges → node holds a fragment spread or inline fragment
// (which might hold such fields of their own). Paginate collects the
// fields to eager-load from the field context, so a field taken out is
// the caller's to read.
func withoutNodeFields(ctx context.Context, typ string, accept map[string]func(*graphql.OperationContext, graphql.CollectedField) bool) (context.Context, []graphql.CollectedField) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return ctx, nil
	}
	oc := graphql.GetOperationContext(ctx)
	edges, ei := plainField(fc.Field.Selections, "edges")
	if edges == nil {
		return ctx, nil
	}
	node, ni := plainField(edges.SelectionSet, "node")
	if node == nil {
		return ctx, nil
	}
	var taken []graphql.CollectedField
	for _, f := range graphql.CollectFields(oc, node.SelectionSet, []string{typ, "Node"}) {
		fits, ok := accept[f.Name]
		if !ok {
			continue
		}
		if !fits(oc, f) {
			return ctx, nil
		}
		taken = append(taken, f)
	}
	if len(taken) == 0 {
		return ctx, nil
	}
	kept := make(ast.SelectionSet, 0, len(node.SelectionSet))
	for _, s := range node.SelectionSet {
		f, ok := s.(*ast.Field)
		if !ok {
			return ctx, nil
		}
		if _, out := accept[f.Name]; !out {
			kept = append(kept, f)
		}
	}
	n := *node
	n.SelectionSet = kept
	e := *edges
	e.SelectionSet = replaced(edges.SelectionSet, ni, &n)
	c := *fc
	c.Field.Selections = replaced(fc.Field.Selections, ei, &e)
	return graphql.WithFieldContext(ctx, &c), taken
}

// plainField returns the one field of set answered under name, and its
// index; nil when set holds a fragment, no such field, several, or another
// field aliased to name.
func plainField(set ast.SelectionSet, name string) (*ast.Field, int) {
	var found *ast.Field
	at := -1
	for i, s := range set {
		f, ok := s.(*ast.Field)
		if !ok {
			return nil, -1
		}
		resp := f.Alias
		if resp == "" {
			resp = f.Name
		}
		if resp != name {
			continue
		}
		if found != nil || f.Name != name {
			return nil, -1
		}
		found, at = f, i
	}
	return found, at
}

// replaced is a copy of set with element i replaced by f.
func replaced(set ast.SelectionSet, i int, f *ast.Field) ast.SelectionSet {
	out := make(ast.SelectionSet, len(set))
	copy(out, set)
	out[i] = f
	return out
}
