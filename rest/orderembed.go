package rest

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/internal/resourceid"
	"logistics/internal/sqltime"
)

// What an order embeds (its hub, workflow, lines with their parts' sku and
// name, and its newest tracking entries) is read for a whole page at once:
// the statement count does not grow with the page.
//
// The lines come with their parts in one statement (a join), not ent's two
// (lines, then parts by id): on SQLite the second statement cost about as
// much as the first, for 200 parts looked up by primary key either way
// (issue 6, W3; figures in bench/README.md).

// A page eager-loads the hub (id and code) through ent; the newest tracking
// entries come from embedLatestTracking (orderload.go), the workflow and the
// lines from embedOrders.

// embedOrders fills each order's workflow (from the process-wide cache of
// workflow versions, which never change) and lines, each with its part's id,
// sku and name.
func (d Deps) embedOrders(ctx context.Context, orders ...*ent.Order) error {
	if len(orders) == 0 {
		return nil
	}
	ids := make([]resourceid.ID, len(orders))
	byID := make(map[resourceid.ID]*ent.Order, len(orders))
	wfIDs := make([]resourceid.ID, 0, 1)
	for i, o := range orders {
		ids[i], byID[o.ID] = o.ID, o
		o.Edges.Lines = []*ent.OrderLine{}
		wfIDs = append(wfIDs, o.WorkflowID)
	}
	wfs, err := d.Service.Workflows(ctx, wfIDs)
	if err != nil {
		return err
	}
	for _, o := range orders {
		o.Edges.Workflow = wfs[o.WorkflowID]
	}

	return embedLines(ctx, ids, byID)
}

// embedLines reads the lines of the orders in byID, with their parts' sku and
// name, in one statement scanned by hand (ent's scanners would need one
// statement per type, or reflection per row); its timestamps through
// sqltime, not go-sqlite3's parser.
func embedLines(ctx context.Context, ids []resourceid.ID, byID map[resourceid.ID]*ent.Order) error {
	drv := ent.FromContext(ctx).Driver()
	b := sql.Dialect(drv.Dialect())
	l, p := b.Table(orderline.Table), b.Table(part.Table).As("p")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	query, qargs := b.Select(
		l.C(orderline.FieldID), l.C(orderline.FieldOrderID), l.C(orderline.FieldPartID),
		l.C(orderline.FieldQuantity), l.C(orderline.FieldAllocatedQuantity), l.C(orderline.FieldShippedQuantity),
		l.C(orderline.FieldRevision), sqltime.Column(drv.Dialect(), l.C(orderline.FieldCreatedAt)),
		sqltime.Column(drv.Dialect(), l.C(orderline.FieldUpdatedAt)),
		p.C(part.FieldSku), p.C(part.FieldPartName),
	).
		From(l).
		Join(p).On(l.C(orderline.FieldPartID), p.C(part.FieldID)).
		Where(sql.In(l.C(orderline.FieldOrderID), args...)).
		OrderBy(l.C(orderline.FieldOrderID), l.C(orderline.FieldID)).
		Query()
	rows := &sql.Rows{}
	if err := drv.Query(ctx, query, qargs, rows); err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		ln, pt := new(ent.OrderLine), new(ent.Part)
		err := rows.Scan((*string)(&ln.ID), (*string)(&ln.OrderID), (*string)(&ln.PartID),
			(*int64)(&ln.Quantity), (*int64)(&ln.AllocatedQuantity), (*int64)(&ln.ShippedQuantity),
			&ln.Revision, sqltime.Time{T: &ln.CreatedAt}, sqltime.Time{T: &ln.UpdatedAt}, &pt.Sku, &pt.PartName)
		if err != nil {
			return err
		}
		pt.ID = ln.PartID
		ln.Edges.Part = pt
		if o := byID[ln.OrderID]; o != nil {
			o.Edges.Lines = append(o.Edges.Lines, ln)
		}
	}
	return rows.Err()
}
