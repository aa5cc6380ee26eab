package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"logistics/ent"
	"logistics/ent/order"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// eagerOrder returns a mutation's order with what its selection asks for
// loaded the way a query loads it (entgql's CollectFields: one statement per
// edge, however many lines the order has). Resolved lazily, every line's
// part would be a statement of its own. A selection that does not go two
// edges deep (lines { part { … } }) cannot multiply statements, so it keeps
// the row the mutation returned and costs nothing more.
func eagerOrder(ctx context.Context) func(*ent.Order, error) (*ent.Order, error) {
	return func(o *ent.Order, err error) (*ent.Order, error) {
		if err != nil || !twoDeep(ctx) {
			return o, err
		}
		return reloadOrder(ctx, o)
	}
}

// renderedOrder is eagerOrder for an order the service hands back as its
// event rendered it (a transition's result: rest's hand-scanned row, which
// is bound to no client, so it cannot load an edge itself). A selection with
// any edge reloads it as a query would; scalars are answered from the row.
func renderedOrder(ctx context.Context) func(*ent.Order, error) (*ent.Order, error) {
	return func(o *ent.Order, err error) (*ent.Order, error) {
		if err != nil || !anyEdge(ctx) {
			return o, err
		}
		return reloadOrder(ctx, o)
	}
}

// reloadOrder reads o again with what the field's selection asks for.
func reloadOrder(ctx context.Context, o *ent.Order) (*ent.Order, error) {
	q, err := ent.FromContext(ctx).Order.Query().Where(order.ID(o.ID)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return q.Only(ctx)
}

// anyEdge reports whether the field's selection has a field with a
// selection of its own.
func anyEdge(ctx context.Context) bool {
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if len(f.Selections) > 0 {
			return true
		}
	}
	return false
}

// twoDeep reports whether the field's selection follows an edge that has a
// selection with an edge of its own.
func twoDeep(ctx context.Context) bool {
	oc := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		for _, sub := range graphql.CollectFields(oc, f.Selections, nil) {
			if len(sub.Selections) > 0 {
				return true
			}
		}
	}
	return false
}
