package graph

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/ent"
	"logistics/internal/view"
)

// The lines of a page of orders (query { orders { edges { node { lines {
// … part { … } } } } } }, W3 and W3s) are read in one hand-scanned
// statement, the lines joined with their parts (internal/view, as
// REST's pages and node(id:) read them), instead of entgql's two eager
// loads through ent's generic scanners: the lines by order, then their
// parts by an IN list of every part id on the page (half of W3's CPU
// through GraphQL). This is done only when every
// lines field under edges.node asks for what view reads (lineReadFields,
// a part's partReadFields) and the path orders → edges → node holds plain
// fields (no fragment spread or inline fragment there); any other selection
// pages through ent alone. The lines are taken out of the selection ent's
// collection sees — Paginate collects the fields to load from the
// field context — and set on each order under every alias the selection
// gives them, where entgql's Order.lines resolver reads them, in the order
// of ent's eager load (view.AsIndexed). Everything else (the page, its
// cursors and filters, tracking entries asked otherwise than below, a hub
// asked for more than below) is ent's own.
//
// Likewise the newest tracking entries (trackingEntries(first: 3, orderBy:
// {field: OCCURRED_AT, direction: DESC}) { edges { node { … } } }, W3 and
// W3s): at most view.LatestTracking of them, asked only for the entries' own
// fields, with no cursor, pageInfo or totalCount, are read by the view's
// page statement (REST's latest_tracking, ties by id as ent's pager breaks
// them) instead of ent's eager load (pergroup.First), and on PostgreSQL in
// one round trip with the lines (view.PageWith).
//
// Likewise the hubs (hub { code }, W3 and W3s): a hub asked only for its id
// and code is read in the page's own statement, a correlated scalar
// subquery (internal/view, as REST's orders pages and GraphQL's items
// pages read theirs), instead of ent's eager load by the page's hub ids: a
// statement fewer per page (W3 4 → 3, the floor's count). Independent of
// the lines: either, both or neither.

// ordersWithLinesAndHubs runs page, the orders connection's Paginate of
// query, with the lines and the newest tracking entries read by view
// and the hubs' codes by view when the selection allows it.
func ordersWithLinesAndHubs(ctx context.Context, query *ent.OrderQuery, page func(context.Context, *ent.OrderQuery) (*ent.OrderConnection, error)) (*ent.OrderConnection, error) {
	pctx, lines := withoutPageLines(ctx)
	pctx, hubs := withoutNodeFields(pctx, "Order", map[string]func(*graphql.OperationContext, graphql.CollectedField) bool{
		"hub": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			return only(oc, f.Selections, "Hub", codeRefFields, nil)
		},
	})
	firsts := map[string]int{} // each trackingEntries alias's first
	pctx, tracking := withoutNodeFields(pctx, "Order", map[string]func(*graphql.OperationContext, graphql.CollectedField) bool{
		"trackingEntries": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			n, ok := newestTracking(oc, f)
			firsts[f.Alias] = n
			return ok
		},
	})
	if hubs != nil {
		query = view.OrderRefs(query)
	}
	conn, err := page(pctx, query)
	if err != nil || len(conn.Edges) == 0 || (lines == nil && hubs == nil && tracking == nil) {
		return conn, err
	}
	orders := make([]*ent.Order, len(conn.Edges))
	for i, e := range conn.Edges {
		orders[i] = e.Node
	}
	if hubs != nil {
		if err := view.OrderRefEdges(orders); err != nil {
			return nil, err
		}
	}
	if lines == nil && tracking == nil {
		return conn, nil
	}
	r := view.OrderRead{Tracking: tracking != nil, Lines: lines != nil, LineOrder: view.AsIndexed}
	if r.Lines {
		r.LineColumns = lineColumns(graphql.GetOperationContext(ctx), lines)
		r.LineMemory = lineMemory(ctx) // borrowed only by a page that reads lines
	}
	if r.Tracking {
		r.TrackingColumns = trackingColumns(graphql.GetOperationContext(ctx), tracking)
	}
	if err := view.PageWith(ctx, orders, r); err != nil {
		return nil, err
	}
	// The lines are on each order's own edge, which entgql's Order.lines
	// resolver reads under any alias (ent/entc.go's edgeTemplate); the
	// tracking entries' connections are built per alias, from what is set
	// under it.
	for _, o := range orders {
		for _, f := range tracking {
			// The connection is built from what is set (entgql's build
			// drops only a look-ahead row): at most first entries.
			o.AppendNamedTrackingEntries(f.Alias, o.Edges.TrackingEntries[:min(firsts[f.Alias], len(o.Edges.TrackingEntries))]...)
		}
	}
	return conn, nil
}

// newestTracking accepts an order's trackingEntries connection that asks
// for at most view.LatestTracking of its newest entries (first: n, orderBy
// occurredAt descending, no other argument) and, under edges.node, only
// fields of the entries' own row: what view reads for a page (REST's
// latest_tracking), ties broken by id as ent's pager breaks them. No cursor,
// pageInfo or totalCount: the connection is built from those entries alone
// (entgql's Order.trackingEntries resolver builds it from the entries set
// under its alias). first is the connection's first.
func newestTracking(oc *graphql.OperationContext, f graphql.CollectedField) (first int, ok bool) {
	args := f.ArgumentMap(oc.Variables)
	n, ok := intArg(args["first"])
	if len(args) != 2 || !ok || n < 0 || n > view.LatestTracking || !occurredAtDesc(args["orderBy"]) {
		return 0, false
	}
	return int(n), only(oc, f.Selections, "TrackingEntryConnection", fieldSet(), map[string]func([]ast.Selection) bool{
		"edges": func(s []ast.Selection) bool {
			return only(oc, s, "TrackingEntryEdge", fieldSet(), map[string]func([]ast.Selection) bool{
				"node": func(s []ast.Selection) bool { return only(oc, s, "TrackingEntry", trackingReadFields, nil) },
			})
		},
	})
}

// trackingReadFields are the fields of a tracking entry the view's page
// statement reads (its hub is left to ent: an entry without one would have
// its hub edge not loaded).
var trackingReadFields = fieldSet("id", "createdAt", "updatedAt", "revision", "orderID", "trackingNumber",
	"carrier", "status", "hubID", "location", "description", "occurredAt")

// intArg is an Int argument's value as the operation gives it.
func intArg(v any) (int64, bool) {
	switch v := v.(type) {
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	}
	return 0, false
}

// occurredAtDesc reports whether an orderBy argument is exactly
// [{field: OCCURRED_AT, direction: DESC}] (or that one object alone).
func occurredAtDesc(v any) bool {
	if list, ok := v.([]any); ok {
		if len(list) != 1 {
			return false
		}
		v = list[0]
	}
	m, ok := v.(map[string]any)
	return ok && len(m) == 2 && m["field"] == "OCCURRED_AT" && m["direction"] == "DESC"
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

// trackingColumns are the optional columns of a tracking entry
// (view.TrackingColumns) the entries' selections ask for, under
// edges { node { … } } (newestTracking accepted nothing else): their
// timestamps, revision, hub id, description.
func trackingColumns(oc *graphql.OperationContext, tracking []graphql.CollectedField) view.TrackingColumns {
	var c view.TrackingColumns
	for _, f := range tracking {
		for _, e := range graphql.CollectFields(oc, f.Selections, []string{"TrackingEntryConnection"}) {
			for _, n := range graphql.CollectFields(oc, e.Selections, []string{"TrackingEntryEdge"}) {
				for _, g := range graphql.CollectFields(oc, n.Selections, []string{"TrackingEntry", "Node"}) {
					switch g.Name {
					case "createdAt", "updatedAt":
						c |= view.TrackingTimes
					case "revision":
						c |= view.TrackingRevision
					case "hubID":
						c |= view.TrackingHub
					case "description":
						c |= view.TrackingDescription
					}
				}
			}
		}
	}
	return c
}

// lineColumns are the optional columns of a line (view.LineColumns) a
// selection of lines asks for: its timestamps, revision, part id (partID,
// or part { id }).
func lineColumns(oc *graphql.OperationContext, lines []graphql.CollectedField) view.LineColumns {
	var c view.LineColumns
	for _, f := range lines {
		for _, g := range graphql.CollectFields(oc, f.Selections, []string{"OrderLine", "Node"}) {
			switch g.Name {
			case "createdAt", "updatedAt":
				c |= view.LineTimes
			case "revision":
				c |= view.LineRevision
			case "partID":
				c |= view.LinePartID
			case "part":
				for _, h := range graphql.CollectFields(oc, g.Selections, []string{"Part", "Node"}) {
					if h.Name == "id" {
						c |= view.LinePartID
					}
				}
			}
		}
	}
	return c
}
