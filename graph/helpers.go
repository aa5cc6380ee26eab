package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/trackingentry"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// eagerOrder returns a mutation's order read again as a query reads it when
// the field's selection follows an edge (withEdges, below). The order a
// transition hands back is the row its event rendered (rest's hand-scanned
// row, bound to no client: it cannot load an edge itself), so it needs the
// reload too; scalars are answered from the row.
func eagerOrder(ctx context.Context) func(*ent.Order, error) (*ent.Order, error) {
	return withEdges(ctx, reloadOrder)
}

// reloadOrder reads o again with what the field's selection asks for: by
// hand when the selection fits what internal/orderread reads (as node(id:)
// does, ordernode.go: two statements, the lines in ent's eager-load order),
// through ent's CollectFields otherwise. Inside the mutation's write
// transaction, where W4's createOrder and allocating transitionOrder
// answers were read with ent's three eager loads (order, lines, parts).
func reloadOrder(ctx context.Context, o *ent.Order) (*ent.Order, error) {
	if read, ok, err := orderNode(ctx, o.ID); err != nil || ok {
		return read, err
	}
	return reloaded[*ent.Order](ctx, ent.FromContext(ctx).Order.Query().Where(order.ID(o.ID)).CollectFields)
}

// The answers of the mutations on orders, items, order lines and tracking
// entries are read again as a query reads them when their selection follows an
// edge (withEdges). Resolved from the mutation's row, each edge was ent's
// edge query: a join on the row's id compared with "= ?", which SQLite
// prepares again at every use (README, Decisions: "= ? and SQLite's
// re-prepare"), and inside the write transaction — createTrackingEntry's
// "order { id }" was a fifth of W5's CPU through GraphQL —, and a list under
// it (order { lines { part { … } } }) one statement per element. Read again,
// it is one statement for the row and one per edge, each comparing with IN.

func eagerItem(ctx context.Context) func(*ent.Item, error) (*ent.Item, error) {
	return withEdges(ctx, func(ctx context.Context, it *ent.Item) (*ent.Item, error) {
		return reloaded[*ent.Item](ctx, ent.FromContext(ctx).Item.Query().Where(item.ID(it.ID)).CollectFields)
	})
}

func eagerOrderLine(ctx context.Context) func(*ent.OrderLine, error) (*ent.OrderLine, error) {
	return withEdges(ctx, func(ctx context.Context, l *ent.OrderLine) (*ent.OrderLine, error) {
		return reloaded[*ent.OrderLine](ctx, ent.FromContext(ctx).OrderLine.Query().Where(orderline.ID(l.ID)).CollectFields)
	})
}

func eagerTrackingEntry(ctx context.Context) func(*ent.TrackingEntry, error) (*ent.TrackingEntry, error) {
	return withEdges(ctx, func(ctx context.Context, t *ent.TrackingEntry) (*ent.TrackingEntry, error) {
		return reloaded[*ent.TrackingEntry](ctx, ent.FromContext(ctx).TrackingEntry.Query().Where(trackingentry.ID(t.ID)).CollectFields)
	})
}

// withEdges returns a mutation's row as reload reads it when the field's
// selection has an edge, and the row itself otherwise.
func withEdges[T any](ctx context.Context, reload func(context.Context, T) (T, error)) func(T, error) (T, error) {
	return func(v T, err error) (T, error) {
		if err != nil || !anyEdge(ctx) {
			return v, err
		}
		return reload(ctx, v)
	}
}

// reloaded runs the query collect returns: the row's query with what the
// field's selection asks for (entgql's CollectFields).
func reloaded[T any, Q interface {
	Only(context.Context) (T, error)
}](ctx context.Context, collect func(context.Context, ...string) (Q, error)) (T, error) {
	q, err := collect(ctx)
	if err != nil {
		var zero T
		return zero, err
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
