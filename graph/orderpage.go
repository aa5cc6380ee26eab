package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/ent"
	"logistics/internal/orderread"
	"logistics/internal/refcolumn"
	"logistics/internal/resourceid"
)

// The lines of a page of orders (query { orders { edges { node { lines {
// … part { … } } } } } }, W3 and W3s) are read in one hand-scanned
// statement, the lines joined with their parts (internal/orderread, as
// REST's pages and node(id:) read them), instead of entgql's two eager
// loads through ent's generic scanners: the lines by order, then their
// parts by an IN list of every part id on the page (half of W3's CPU
// through GraphQL, bench/README session 14). This is done only when every
// lines field under edges.node asks for what orderread reads (lineReadFields,
// a part's partReadFields) and the path orders → edges → node holds plain
// fields (no fragment spread or inline fragment there); any other selection
// pages through ent alone. The lines are taken out of the selection ent's
// collection sees — Paginate collects the fields to load from the
// field context — and set on each order under every alias the selection
// gives them, where entgql's Order.lines resolver reads them, in the order
// of ent's eager load (orderread.AsIndexed). Everything else (the page, its
// cursors and filters, the tracking entries, a hub asked for more than
// below) is ent's own.
//
// Likewise the hubs (hub { code }, W3 and W3s): a hub asked only for its id
// and code is read in the page's own statement, a correlated scalar
// subquery (internal/refcolumn, as REST's orders pages and GraphQL's items
// pages read theirs), instead of ent's eager load by the page's hub ids: a
// statement fewer per page (W3 4 → 3, the floor's count). Independent of
// the lines: either, both or neither.

// ordersWithLinesAndHubs runs page, the orders connection's Paginate of query,
// with the lines read by orderread and the hubs' codes by refcolumn when
// the selection allows it.
func ordersWithLinesAndHubs(ctx context.Context, query *ent.OrderQuery, page func(context.Context, *ent.OrderQuery) (*ent.OrderConnection, error)) (*ent.OrderConnection, error) {
	pctx, lines := withoutPageLines(ctx)
	pctx, hubs := withoutNodeFields(pctx, "Order", map[string]func(*graphql.OperationContext, graphql.CollectedField) bool{
		"hub": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			return only(oc, f.Selections, "Hub", codeRefFields, nil)
		},
	})
	if hubs != nil {
		query = refcolumn.Orders(query)
	}
	conn, err := page(pctx, query)
	if err != nil || len(conn.Edges) == 0 || (lines == nil && hubs == nil) {
		return conn, err
	}
	if hubs != nil {
		orders := make([]*ent.Order, len(conn.Edges))
		for i, e := range conn.Edges {
			orders[i] = e.Node
		}
		if err := refcolumn.OrderEdges(orders); err != nil {
			return nil, err
		}
	}
	if lines == nil {
		return conn, nil
	}
	ids := make([]resourceid.ID, len(conn.Edges))
	byID := make(map[resourceid.ID]*ent.Order, len(conn.Edges))
	for i, e := range conn.Edges {
		ids[i] = e.Node.ID
		byID[e.Node.ID] = e.Node
	}
	if err := orderread.Lines(ctx, ids, byID, orderread.AsIndexed, lineTimes(graphql.GetOperationContext(ctx), lines)); err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		for _, f := range lines {
			e.Node.AppendNamedLines(f.Alias, e.Node.Edges.Lines...)
		}
	}
	return conn, nil
}

// withoutPageLines returns ctx with a field context whose selection has no
// lines under edges.node, and the lines fields taken out; nil when there
// are none or the selection does not qualify.
func withoutPageLines(ctx context.Context) (context.Context, []graphql.CollectedField) {
	return withoutNodeFields(ctx, "Order", map[string]func(*graphql.OperationContext, graphql.CollectedField) bool{
		"lines": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			return only(oc, f.Selections, "OrderLine", lineReadFields, map[string]func([]ast.Selection) bool{
				"part": func(s []ast.Selection) bool { return only(oc, s, "Part", partReadFields, nil) },
			})
		},
	})
}

// lineTimes is whether a selection of lines asks for a line's timestamps.
func lineTimes(oc *graphql.OperationContext, lines []graphql.CollectedField) orderread.LineTimes {
	for _, f := range lines {
		for _, g := range graphql.CollectFields(oc, f.Selections, []string{"OrderLine", "Node"}) {
			if g.Name == "createdAt" || g.Name == "updatedAt" {
				return orderread.WithTimes
			}
		}
	}
	return orderread.WithoutTimes
}
