package graph

import (
	"context"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/graph/generated"
	"logistics/internal/auth"
	"logistics/internal/view"
)

// fastQueryFields executes the root fields of queries through the fast path
// generated in graph/generated/fastpath.go (internal/gqlcodegen.FastPath
// explains it), and through gqlgen when the fast path declines: a field with
// an error, a directive, an interface… Mutations always go through gqlgen,
// and so do root fields that are or select an aggregate (@aggregate: the
// aggregation core's fields, which the fast path does not mirror).
//
// The fast path skips gqlgen's field middleware (fieldPolicy), so whatever
// it enforces must be mirrored: scopeGuard's type rule in allowType, its
// filter rule in allowArgs and its check of a resolved Node in allowNode;
// the count of resolved fields in the count QueryField returns, and the
// cap on plain lists in FastPath.MaxList (the fast path declines a longer
// list, so gqlgen reports the error).
func fastQueryFields(fast *generated.FastPath, counts *FastPathCounts) graphql.RootFieldMiddleware {
	if counts == nil {
		counts = &FastPathCounts{}
	}
	return func(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
		oc := graphql.GetOperationContext(ctx)
		rf := graphql.GetRootFieldContext(ctx)
		if oc.Operation == nil || oc.Operation.Operation != ast.Query || rf == nil {
			return next(ctx)
		}
		// Aggregates are gqlgen's alone (the generated switch declines them
		// too, but only where it meets them: after the root's resolver has
		// run, so its statement would run twice).
		if selectsAggregate(rf.Field.Field, oc.Doc.Fragments, 0) {
			counts.Declined.Add(1)
			return next(ctx)
		}
		mem := new(pageMemory)
		out, fields, ok := fast.QueryField(context.WithValue(ctx, pageMemoryKey{}, mem), rf.Field)
		// The field's JSON is written (or the fast path declined, and gqlgen
		// executes the field again with ctx, in fresh memory): nothing the
		// fast path read is used after this.
		mem.release()
		if ok {
			counts.Served.Add(1)
			if st := requestCost(ctx); st != nil {
				st.actual.Add(int64(fields)) // as fieldPolicy counts them
			}
			if m := responseMemoryOf(ctx); m != nil {
				return fastField{json: out, mem: m} // written into the transport's slab
			}
			return out
		}
		counts.Declined.Add(1)
		return next(ctx)
	}
}

// pageMemory is the memory the fast path's pages borrow while one root
// field is executed (view.LineMemory: the entities of an order page's
// lines), taken back once its JSON is written. gqlgen's executor writes a
// field's JSON after its resolvers return, so what it executes keeps fresh
// memory: lineMemory is nil outside the fast path.
type pageMemory struct{ lines *view.LineMemory }

type pageMemoryKey struct{}

func (m *pageMemory) release() {
	m.lines.Release()
	m.lines = nil
}

// lineMemory returns the line memory of the fast path's root field being
// executed in ctx, nil outside the fast path.
func lineMemory(ctx context.Context) *view.LineMemory {
	m, _ := ctx.Value(pageMemoryKey{}).(*pageMemory)
	if m == nil {
		return nil
	}
	if m.lines == nil {
		m.lines = view.NewLineMemory()
	}
	return m.lines
}

// selectsAggregate tells whether f is, or selects at any depth, a field
// marked @aggregate (graph/schema/aggregate.graphqls).
func selectsAggregate(f *ast.Field, frags ast.FragmentDefinitionList, depth int) bool {
	if f == nil || depth > 64 {
		return false
	}
	if f.Definition != nil && f.Definition.Directives.ForName("aggregate") != nil {
		return true
	}
	return setSelectsAggregate(f.SelectionSet, frags, depth+1)
}

func setSelectsAggregate(set ast.SelectionSet, frags ast.FragmentDefinitionList, depth int) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if selectsAggregate(s, frags, depth) {
				return true
			}
		case *ast.InlineFragment:
			if setSelectsAggregate(s.SelectionSet, frags, depth+1) {
				return true
			}
		case *ast.FragmentSpread:
			// Validation refuses fragment cycles; depth bounds a document
			// that still has one.
			if f := frags.ForName(s.Name); f != nil && depth <= 64 && setSelectsAggregate(f.SelectionSet, frags, depth+1) {
				return true
			}
		}
	}
	return false
}

// FastPathCounts counts the root query fields the fast path served and those
// it declined (gqlgen executed them). /metrics shows them.
type FastPathCounts struct{ Served, Declined atomic.Int64 }

// allowType is scopeGuard's type rule (auth.RequireType) for the fast path,
// which declines rather than reporting the error: gqlgen then reports it.
func allowType(ctx context.Context, typeName string) bool {
	return auth.RequireType(ctx, typeName) == nil
}

// allowNode is scopeGuard's check of a resolved Node (requireNode) for the
// fast path, which declines rather than reporting the error.
func allowNode(ctx context.Context, obj any) bool {
	return requireNode(ctx, obj) == nil
}

// allowArgs is scopeGuard's filter rule (requireFilters) for the fast path,
// which declines rather than reporting the error: gqlgen then reports it.
func allowArgs(ctx context.Context, fc *graphql.FieldContext) bool {
	return requireFilters(ctx, fc) == nil
}
