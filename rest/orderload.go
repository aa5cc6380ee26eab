package rest

import (
	"context"
	stdsql "database/sql"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// One order, as GET /v1/orders/{id} and every order event render it, is read
// in three statements scanned by hand: the order with its hub's code, its
// newest tracking entries with their hubs' codes, and its lines with their
// parts (embedLines). ent's eager loads took five (order, hub, entries, their
// hubs, lines), each built anew by ent's SQL builder and scanned through its
// generic scanners, which were most of the cost of W6 (bench/README.md,
// session 8). The texts are built once per dialect; a column added to the
// schema and not here is caught by TestOrderLoadMatchesEnt.
//
// Both compare the id with "IN (?)", not "= ?": for the same plan, SQLite
// marks a statement whose planner looked at an "= ?" term it did not use
// for the loop (a join's other table, an ORDER BY's other index) to be
// prepared again whenever its bindings are cleared, and go-sqlite3 clears
// them at every use — a cached statement was re-parsed every time, 27% of
// W6's CPU (README, Decisions: "= ? and SQLite's re-prepare").

// orderStatements are the texts of one dialect.
type orderStatements struct {
	order, tracking string
}

var orderLoadStatements = map[string]orderStatements{
	dialect.SQLite:   buildOrderStatements(dialect.SQLite),
	dialect.Postgres: buildOrderStatements(dialect.Postgres),
}

func buildOrderStatements(name string) orderStatements {
	b := sql.Dialect(name)
	o, h := b.Table(order.Table).As("o"), b.Table(hub.Table).As("h")
	oq, _ := b.Select(
		o.C(order.FieldID), o.C(order.FieldCreatedAt), o.C(order.FieldUpdatedAt), o.C(order.FieldRevision),
		o.C(order.FieldNumber), o.C(order.FieldStatus), o.C(order.FieldWorkflowID), o.C(order.FieldHubID),
		o.C(order.FieldCustomerRef), o.C(order.FieldPriority), o.C(order.FieldShipToName),
		o.C(order.FieldShipToLine1), o.C(order.FieldShipToLine2), o.C(order.FieldShipToCity),
		o.C(order.FieldShipToPostalCode), o.C(order.FieldShipToCountry), o.C(order.FieldDueAt),
		h.C(hub.FieldCode),
	).From(o).Join(h).On(o.C(order.FieldHubID), h.C(hub.FieldID)).
		Where(sql.In(o.C(order.FieldID), "")).Query()

	// Newest first, ties by id: the order of withOrderEdges and of GraphQL's
	// pager, read from the index trackingentry_order_id_occurred_at_id.
	t, th := b.Table(trackingentry.Table).As("t"), b.Table(hub.Table).As("h")
	tq, _ := b.Select(
		t.C(trackingentry.FieldID), t.C(trackingentry.FieldCreatedAt), t.C(trackingentry.FieldUpdatedAt),
		t.C(trackingentry.FieldRevision), t.C(trackingentry.FieldOrderID), t.C(trackingentry.FieldTrackingNumber),
		t.C(trackingentry.FieldCarrier), t.C(trackingentry.FieldStatus), t.C(trackingentry.FieldHubID),
		t.C(trackingentry.FieldLocation), t.C(trackingentry.FieldDescription), t.C(trackingentry.FieldOccurredAt),
		th.C(hub.FieldCode),
	).From(t).LeftJoin(th).On(t.C(trackingentry.FieldHubID), th.C(hub.FieldID)).
		Where(sql.In(t.C(trackingentry.FieldOrderID), "")).
		OrderExpr(sql.DescExpr(sql.Expr(t.C(trackingentry.FieldOccurredAt))), sql.Expr(t.C(trackingentry.FieldID))).
		Limit(latestTracking).Query()
	return orderStatements{order: oq, tracking: tq}
}

// loadOrder reads order id as renderOrder needs it: its hub's code, its
// workflow, its lines with their parts, its newest tracking entries.
func (d Deps) loadOrder(ctx context.Context, id resourceid.ID) (*ent.Order, error) {
	drv := ent.FromContext(ctx).Driver()
	stmts := orderLoadStatements[drv.Dialect()]
	o, err := scanOrder(ctx, drv, stmts.order, id)
	if err == nil && o == nil {
		return nil, apperr.NotFound("order %s not found", id)
	}
	if err == nil {
		o.Edges.TrackingEntries, err = scanLatestTracking(ctx, drv, stmts.tracking, id)
	}
	if err == nil {
		err = d.embedOrders(ctx, o)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return o, nil
}

// scanOrder returns the order with its hub (id and code), or nil.
func scanOrder(ctx context.Context, drv dialect.Driver, query string, id resourceid.ID) (*ent.Order, error) {
	rows := &sql.Rows{}
	if err := drv.Query(ctx, query, []any{id}, rows); err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	o, h := new(ent.Order), new(ent.Hub)
	var due stdsql.NullTime
	err := rows.Scan((*string)(&o.ID), &o.CreatedAt, &o.UpdatedAt, &o.Revision,
		&o.Number, &o.Status, (*string)(&o.WorkflowID), (*string)(&o.HubID),
		&o.CustomerRef, (*string)(&o.Priority), &o.ShipToName,
		&o.ShipToLine1, &o.ShipToLine2, &o.ShipToCity,
		&o.ShipToPostalCode, &o.ShipToCountry, &due,
		&h.Code)
	if err != nil {
		return nil, err
	}
	if due.Valid {
		o.DueAt = &due.Time
	}
	h.ID = o.HubID
	o.Edges.Hub = h
	return o, rows.Close()
}

// scanLatestTracking returns the order's newest tracking entries, each with
// its hub (id and code) when it has one.
func scanLatestTracking(ctx context.Context, drv dialect.Driver, query string, id resourceid.ID) ([]*ent.TrackingEntry, error) {
	rows := &sql.Rows{}
	if err := drv.Query(ctx, query, []any{id}, rows); err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*ent.TrackingEntry, 0, latestTracking)
	for rows.Next() {
		t := new(ent.TrackingEntry)
		var hubID, hubCode stdsql.NullString
		err := rows.Scan((*string)(&t.ID), &t.CreatedAt, &t.UpdatedAt,
			&t.Revision, (*string)(&t.OrderID), &t.TrackingNumber,
			&t.Carrier, (*string)(&t.Status), &hubID,
			&t.Location, &t.Description, &t.OccurredAt,
			&hubCode)
		if err != nil {
			return nil, err
		}
		if hubID.Valid {
			hid := resourceid.ID(hubID.String)
			t.HubID = &hid
			t.Edges.Hub = &ent.Hub{ID: hid, Code: hubCode.String}
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
