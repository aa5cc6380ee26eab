package generated

// Hand-written, not generated: graph/gqlgen.go points gqlgen's generated list
// marshalling here (see listsInOrder there for why).

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// marshalSliceInOrder is graphql.MarshalSliceConcurrently without the
// goroutines: each element is marshalled on the caller's goroutine, in order,
// with its own field context (the list index) and, unless panics are left to
// the caller, the same recovery: a panicking element records an error and
// the whole list becomes null.
func marshalSliceInOrder(ctx context.Context, length int, _ int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ret graphql.Array) {
	ret = make(graphql.Array, length)
	for i := range length {
		childCtx := graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
		if omitPanicHandler {
			ret[i] = marshalElement(childCtx, i)
			continue
		}
		if !marshalRecovering(childCtx, i, ret, marshalElement) {
			return nil
		}
	}
	return ret
}

func marshalRecovering(ctx context.Context, i int, ret graphql.Array,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			graphql.AddError(ctx, graphql.Recover(ctx, r))
			ok = false
		}
	}()
	ret[i] = marshalElement(ctx, i)
	return true
}
