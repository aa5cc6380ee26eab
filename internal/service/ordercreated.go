package service

import (
	"context"
	"slices"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/part"
	"logistics/internal/resourceid"
)

// order.created is rendered from the order and lines the create has just
// written, not read back: a new order has no tracking entry, and its rows
// are what ent inserted (timestamps set here, to the microsecond
// PostgreSQL keeps). What the writes do not know, the hub's code and the
// parts' skus and names, comes from one statement; the read-back took
// three (the order with its hub, its tracking entries, its lines with
// their parts).

// emitOrderCreated records order.created for o, created with lines under
// workflow wf. A due time finer than a microsecond (stored as given on
// SQLite, to the microsecond on PostgreSQL), a hub or part the statement
// does not find: the order is read back instead.
func (s *Service) emitOrderCreated(ctx context.Context, o *ent.Order, lines []*ent.OrderLine, wf *ent.Workflow) error {
	if o.DueAt != nil && o.DueAt.Nanosecond()%1000 != 0 {
		return s.emitCreated(ctx, "order.created", o.ID, nil)
	}
	partIDs := make([]resourceid.ID, 0, len(lines))
	for _, l := range lines {
		if !slices.Contains(partIDs, l.PartID) {
			partIDs = append(partIDs, l.PartID)
		}
	}
	code, parts, err := orderRefs(ctx, o.HubID, partIDs)
	if err != nil {
		return err
	}
	if code == nil {
		return s.emitCreated(ctx, "order.created", o.ID, nil)
	}
	// wf is the process's cached version (LatestWorkflow), without edges,
	// as a read of the order would embed it.
	after := *o
	after.Edges = ent.OrderEdges{Hub: &ent.Hub{ID: o.HubID, Code: *code}, Workflow: wf,
		TrackingEntries: []*ent.TrackingEntry{}, Lines: make([]*ent.OrderLine, len(lines))}
	for i, l := range lines {
		p := parts[l.PartID]
		if p == nil {
			return s.emitCreated(ctx, "order.created", o.ID, nil)
		}
		line := *l
		line.Edges = ent.OrderLineEdges{Part: p}
		after.Edges.Lines[i] = &line
	}
	// The read orders an order's lines by id (view.ByID).
	slices.SortFunc(after.Edges.Lines, func(a, b *ent.OrderLine) int { return strings.Compare(string(a.ID), string(b.ID)) })
	obj, ok, err := s.objectFrom(ctx, o.ID, &after)
	if err != nil {
		return err
	}
	if !ok {
		return s.emitCreated(ctx, "order.created", o.ID, nil)
	}
	return s.record(ctx, "order.created", o.ID, obj, nil, nil)
}

// orderRefs reads the code of hub hubID (nil if there is none) and the sku
// and name of the parts in one statement (ent's SQL builder, UNION ALL). The hub's row repeats its
// code in the third column, where a part has its name.
func orderRefs(ctx context.Context, hubID resourceid.ID, partIDs []resourceid.ID) (*string, map[resourceid.ID]*ent.Part, error) {
	drv := client(ctx).Driver()
	b := entsql.Dialect(drv.Dialect())
	h := b.Table(hub.Table)
	sel := b.Select(h.C(hub.FieldID), h.C(hub.FieldCode), h.C(hub.FieldCode)).From(h).Where(entsql.In(h.C(hub.FieldID), hubID))
	if len(partIDs) > 0 {
		ids := make([]any, len(partIDs))
		for i, id := range partIDs {
			ids[i] = id
		}
		p := b.Table(part.Table)
		sel.UnionAll(b.Select(p.C(part.FieldID), p.C(part.FieldSku), p.C(part.FieldPartName)).From(p).Where(entsql.In(p.C(part.FieldID), ids...)))
	}
	query, args := sel.Query()
	rows := &entsql.Rows{}
	if err := drv.Query(ctx, query, args, rows); err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var code *string
	parts := make(map[resourceid.ID]*ent.Part, len(partIDs))
	for rows.Next() {
		var id, a, b string
		if err := rows.Scan(&id, &a, &b); err != nil {
			return nil, nil, err
		}
		if rid := resourceid.ID(id); rid.Prefix() == resourceid.Hub {
			code = &a
		} else {
			parts[rid] = &ent.Part{ID: rid, Sku: a, PartName: b}
		}
	}
	return code, parts, rows.Err()
}

// writeNow is the time the service writes into a row whose event it
// renders from the write rather than reading it back (created_at,
// updated_at): UTC, to the microsecond PostgreSQL keeps.
func writeNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
