package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/internal/database"
)

// readRouting sends every read of a mutation's or a subscription's request
// to the primary (internal/database/replica.go); a query's reads follow
// the client's Prefer: read=… and, by default, leave only the aggregates
// (groups and connection totals, marked in aggregate.go) to a replica.
type readRouting struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
} = readRouting{}

func (readRouting) ExtensionName() string                          { return "ReadRouting" }
func (readRouting) Validate(schema graphql.ExecutableSchema) error { return nil }

func (readRouting) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil && oc.Operation.Operation != ast.Query {
		ctx = database.PrimaryOnly(ctx)
	}
	return next(ctx)
}
