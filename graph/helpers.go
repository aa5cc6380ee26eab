package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/trackingentry"
	"logistics/internal/resourceid"
	"logistics/internal/sandbox"
	"logistics/internal/view"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// eagerOrder returns a mutation's order with the edges its field's
// selection follows (withEdges, below). A selection that fits what
// internal/view reads (orderReadFits, ordernode.go) is answered from
// the row its event was rendered from in the mutation's transaction
// (renderedOrder; memo is the Renderings the service call ran with), or
// read again by hand as node(id:) reads it (two statements, the lines in
// ent's eager-load order); any other through ent's CollectFields. The
// order a transition hands back is that row without its edges (rest's
// hand-scanned row, bound to no client: it cannot load an edge itself);
// scalars are answered from it. Read again with ent's three eager loads
// (order, lines, parts), W4's createOrder and allocating transitionOrder
// answers were most of their statements inside the write transaction.
func eagerOrder(ctx context.Context, memo *view.Renderings) func(*ent.Order, error) (*ent.Order, error) {
	return withEdges(ctx, func(ctx context.Context, o *ent.Order) (*ent.Order, error) {
		if lineFields, fits := orderReadFits(ctx); fits {
			if out, ok := renderedOrder(memo, o.ID, lineFields); ok {
				return out, nil
			}
			if read, ok, err := readOrder(ctx, o.ID, lineFields); err != nil || ok {
				return read, err
			}
		}
		return reloaded[*ent.Order](ctx, ent.FromContext(ctx).Order.Query().Where(order.ID(o.ID)).CollectFields)
	})
}

// The answers of the mutations on orders, items, order lines and tracking
// entries are read again as a query reads them when their selection follows an
// edge (withEdges). Resolved from the mutation's row, each edge was ent's
// edge query: a join on the row's id compared with "= ?", which SQLite
// prepares again at every use (go-sqlite3 clears a statement's bindings
// after each use, and SQLite then re-plans a "= ?" lookup), and inside the write transaction — createTrackingEntry's
// "order { id }" was a fifth of W5's CPU through GraphQL —, and a list under
// it (order { lines { part { … } } }) one statement per element. Read again,
// it is one statement for the row and one per edge, each comparing with IN.
//
// An edge to one node whose selection is its id alone (W5's createTrackingEntry
// { order { id } }) needs no statement: the row holds the id (its foreign
// key), and the edge is answered from it (idEdges).

func eagerItem(ctx context.Context) func(*ent.Item, error) (*ent.Item, error) {
	return withEdges(ctx, func(ctx context.Context, it *ent.Item) (*ent.Item, error) {
		if ids, ok := idEdges(ctx, map[string]*resourceid.ID{"part": &it.PartID, "hub": &it.HubID}); ok {
			row := *it
			row.Edges.Part = stub[ent.Part](ids, "part", func(id resourceid.ID) *ent.Part { return &ent.Part{ID: id} })
			row.Edges.Hub = stub[ent.Hub](ids, "hub", func(id resourceid.ID) *ent.Hub { return &ent.Hub{ID: id} })
			return &row, nil
		}
		return reloaded[*ent.Item](ctx, ent.FromContext(ctx).Item.Query().Where(item.ID(it.ID)).CollectFields)
	})
}

func eagerOrderLine(ctx context.Context) func(*ent.OrderLine, error) (*ent.OrderLine, error) {
	return withEdges(ctx, func(ctx context.Context, l *ent.OrderLine) (*ent.OrderLine, error) {
		if ids, ok := idEdges(ctx, map[string]*resourceid.ID{"order": &l.OrderID, "part": &l.PartID}); ok {
			row := *l
			row.Edges.Order = stub[ent.Order](ids, "order", func(id resourceid.ID) *ent.Order { return &ent.Order{ID: id} })
			row.Edges.Part = stub[ent.Part](ids, "part", func(id resourceid.ID) *ent.Part { return &ent.Part{ID: id} })
			return &row, nil
		}
		return reloaded[*ent.OrderLine](ctx, ent.FromContext(ctx).OrderLine.Query().Where(orderline.ID(l.ID)).CollectFields)
	})
}

// idEdges reports whether every edge the field's selection follows is one
// of the row's to-one edges given (name → the id the row holds, nil for
// none) and asks for nothing but its id (and __typename), and returns
// those edges' ids. Fragments count with every field they select, whatever
// their type condition: a selection idEdges accepts reads nothing else.
func idEdges(ctx context.Context, fks map[string]*resourceid.ID) (map[string]resourceid.ID, bool) {
	oc := graphql.GetOperationContext(ctx)
	ids := map[string]resourceid.ID{}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if len(f.Selections) == 0 {
			continue
		}
		fk, ok := fks[f.Name]
		if !ok || fk == nil || *fk == "" {
			return nil, false
		}
		for _, sub := range graphql.CollectFields(oc, f.Selections, nil) {
			if sub.Name != "id" && sub.Name != "__typename" {
				return nil, false
			}
		}
		ids[f.Name] = *fk
	}
	return ids, true
}

// stub is the node of an edge idEdges answered (its id alone), or nil when
// the selection does not follow the edge.
func stub[T any](ids map[string]resourceid.ID, edge string, node func(resourceid.ID) *T) *T {
	id, ok := ids[edge]
	if !ok {
		return nil
	}
	return node(id)
}

func eagerTrackingEntry(ctx context.Context) func(*ent.TrackingEntry, error) (*ent.TrackingEntry, error) {
	return withEdges(ctx, func(ctx context.Context, t *ent.TrackingEntry) (*ent.TrackingEntry, error) {
		if ids, ok := idEdges(ctx, map[string]*resourceid.ID{"order": &t.OrderID, "hub": t.HubID}); ok {
			row := *t
			row.Edges.Order = stub[ent.Order](ids, "order", func(id resourceid.ID) *ent.Order { return &ent.Order{ID: id} })
			row.Edges.Hub = stub[ent.Hub](ids, "hub", func(id resourceid.ID) *ent.Hub { return &ent.Hub{ID: id} })
			return &row, nil
		}
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

// clockState is a sandbox clock call's answer as a GraphQL result.
func clockState(s sandbox.State, err error) (*sandbox.State, error) {
	if err != nil {
		return nil, err
	}
	return &s, nil
}
