package metrics

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// GraphQLOperations is a gqlgen extension that records each operation's
// type in the Request its context carries (WithRequest), for the
// operation label. It is an operation-context mutator, which gqlgen calls
// once the document is parsed and validated and before the other
// extensions' limits: an operation that a limit then refuses is still
// counted under its type. It never fails an operation.
type GraphQLOperations struct{}

var (
	_ graphql.HandlerExtension        = GraphQLOperations{}
	_ graphql.OperationContextMutator = GraphQLOperations{}
)

// ExtensionName names the extension for gqlgen.
func (GraphQLOperations) ExtensionName() string { return "RequestMetrics" }

// Validate accepts every schema.
func (GraphQLOperations) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext records the operation's type.
func (GraphQLOperations) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if q := RequestOf(ctx); q != nil && oc.Operation != nil {
		q.SetOperation(OperationOf(string(oc.Operation.Operation)))
	}
	return nil
}
