package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"logistics/ent"
	"logistics/internal/view"
)

// A page of items whose part and hub are asked only for their ids, the
// part's sku and the hub's code (W1) reads those in the page's own
// statement, as correlated scalar subqueries (internal/view, as REST's
// items pages do), instead of entgql's two eager loads (parts, then hubs,
// by the page's ids). Only when the path to node holds plain fields
// (withoutNodeFields); any other selection pages through ent alone.

var (
	skuRefFields  = fieldSet("id", "sku")
	codeRefFields = fieldSet("id", "code")
)

// itemsWithRefs runs page, the items connection's Paginate of query, with
// the parts' skus and hubs' codes read by view when the selection
// allows it. (A count of the page's rows, totalCount, replaces the
// statement's selection, the reference columns with it.)
func itemsWithRefs(ctx context.Context, query *ent.ItemQuery, page func(context.Context, *ent.ItemQuery) (*ent.ItemConnection, error)) (*ent.ItemConnection, error) {
	pctx, refs := withoutNodeFields(ctx, "Item", map[string]func(*graphql.OperationContext, graphql.CollectedField) bool{
		"part": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			return only(oc, f.Selections, "Part", skuRefFields, nil)
		},
		"hub": func(oc *graphql.OperationContext, f graphql.CollectedField) bool {
			return only(oc, f.Selections, "Hub", codeRefFields, nil)
		},
	})
	if refs == nil {
		return page(ctx, query)
	}
	conn, err := page(pctx, view.ItemRefs(query))
	if err != nil {
		return nil, err
	}
	items := make([]*ent.Item, len(conn.Edges))
	for i, e := range conn.Edges {
		items[i] = e.Node
	}
	if err := view.ItemRefEdges(items); err != nil {
		return nil, err
	}
	return conn, nil
}
