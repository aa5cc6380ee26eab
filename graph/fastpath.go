package graph

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/graph/generated"
	"logistics/internal/auth"
)

// fastQueryFields executes the root fields of queries through the fast path
// generated in graph/generated/fastpath.go (internal/gqlcodegen.FastPath
// explains it), and through gqlgen when the fast path declines: a field with
// an error, a directive, an interface… Mutations always go through gqlgen.
//
// The fast path skips gqlgen's field middleware, so whatever a field
// middleware enforces must be mirrored: scopeGuard's type rule in allowType;
// costFields' count of resolved fields in the count QueryField returns, and
// its cap on plain lists in FastPath.MaxList (the fast path declines a longer
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
		if out, fields, ok := fast.QueryField(ctx, rf.Field); ok {
			counts.Served.Add(1)
			if st := requestCost(ctx); st != nil {
				st.actual.Add(int64(fields)) // as costFields counts them
			}
			return rawJSON(out)
		}
		counts.Declined.Add(1)
		return next(ctx)
	}
}

// FastPathCounts counts the root query fields the fast path served and those
// it declined (gqlgen executed them). /metrics shows them.
type FastPathCounts struct{ Served, Declined atomic.Int64 }

// rawJSON is an already encoded JSON value.
type rawJSON []byte

func (r rawJSON) MarshalGQL(w io.Writer) { _, _ = w.Write(r) }

// allowType is scopeGuard's type rule (auth.RequireType) for the fast path,
// which declines rather than reporting the error: gqlgen then reports it.
func allowType(ctx context.Context, typeName string) bool {
	return auth.RequireType(ctx, typeName) == nil
}
