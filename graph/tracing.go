package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// operationSpans makes a span per GraphQL query or mutation, with the
// semantic conventions' graphql.operation.type and graphql.operation.name,
// around its execution: the resolvers' statements (and a mutation's
// transaction) are its children. It intercepts the operation, outside the
// root fields, so the fast path (fastpath.go), which serves root fields,
// runs inside the same span as gqlgen's executor. A subscription lives as
// long as its stream: its events have spans of their own (the broker's
// publish spans), so it has none. Installed only when tracing is on.
type operationSpans struct{ tracer trace.Tracer }

var (
	_ graphql.HandlerExtension     = operationSpans{}
	_ graphql.OperationInterceptor = operationSpans{}
)

func (operationSpans) ExtensionName() string                          { return "OperationSpans" }
func (operationSpans) Validate(schema graphql.ExecutableSchema) error { return nil }

func (o operationSpans) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return next(ctx)
	}
	typ, name := string(oc.Operation.Operation), oc.Operation.Name
	spanName := typ
	if name != "" {
		spanName += " " + name
	}
	attrs := []attribute.KeyValue{attribute.String("graphql.operation.type", typ)}
	if name != "" {
		attrs = append(attrs, attribute.String("graphql.operation.name", name))
	}
	ctx, span := o.tracer.Start(ctx, spanName, trace.WithAttributes(attrs...))
	h := next(ctx)
	ended := false
	return func(ctx context.Context) *graphql.Response {
		// gqlgen executes a query or a mutation in this call, with the
		// context the operation handlers were given (the span's).
		resp := h(ctx)
		if !ended {
			ended = true
			if resp != nil && len(resp.Errors) > 0 {
				span.SetStatus(codes.Error, resp.Errors[0].Message)
			}
			span.End()
		}
		return resp
	}
}
