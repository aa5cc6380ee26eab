package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// txOpenErrors presents the error of a mutation whose transaction could not
// be opened as every other error is presented (the presenter: a database
// that does not answer is database_unavailable, with transport.go's 503).
// entgql's Transactioner answers such a mutation with the error's text
// alone ("cannot create transaction: failed to connect to …"), which showed
// the database's address and had no code; openTx keeps the error for this
// interceptor, which runs outside the Transactioner.
type txOpenErrors struct {
	present graphql.ErrorPresenterFunc
}

type txOpenKey struct{}

// txOpenFailure holds the error openTx met, if any.
type txOpenFailure struct{ err error }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = txOpenErrors{}

func (txOpenErrors) ExtensionName() string                   { return "TxOpenErrors" }
func (txOpenErrors) Validate(graphql.ExecutableSchema) error { return nil }
func (t txOpenErrors) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	// Only a mutation opens a transaction: queries and every subscription
	// message go by without the record.
	if !graphql.HasOperationContext(ctx) || graphql.GetOperationContext(ctx).Operation == nil ||
		graphql.GetOperationContext(ctx).Operation.Operation != ast.Mutation {
		return next(ctx)
	}
	f := &txOpenFailure{}
	resp := next(context.WithValue(ctx, txOpenKey{}, f))
	if f.err != nil && resp != nil && resp.Data == nil {
		resp.Errors = gqlerror.List{t.present(ctx, f.err)}
	}
	return resp
}

// keepTxOpenError records err, a failure to open the mutation's
// transaction, for txOpenErrors.
func keepTxOpenError(ctx context.Context, err error) {
	if f, ok := ctx.Value(txOpenKey{}).(*txOpenFailure); ok {
		f.err = err
	}
}
