package rest

import (
	"context"
	stdsql "database/sql"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/sqltime"
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
// W6's CPU (README, Decisions: "= ? and SQLite's re-prepare"). Timestamps
// are read through sqltime, not go-sqlite3's parser.

// orderStatements are the texts of one dialect.
type orderStatements struct {
	order, tracking string
	// pageTracking is the text of embedLatestTracking, in two parts around
	// the predicate on the page's ids, which compares them with pageID (o.id,
	// quoted).
	pageTracking [2]string
	pageID       string
}

var orderLoadStatements = map[string]orderStatements{
	dialect.SQLite:   buildOrderStatements(dialect.SQLite),
	dialect.Postgres: buildOrderStatements(dialect.Postgres),
}

func buildOrderStatements(name string) orderStatements {
	b := sql.Dialect(name)
	o, h := b.Table(order.Table).As("o"), b.Table(hub.Table).As("h")
	ts := func(col string) string { return sqltime.Column(name, col) }
	oq, _ := b.Select(
		o.C(order.FieldID), ts(o.C(order.FieldCreatedAt)), ts(o.C(order.FieldUpdatedAt)), o.C(order.FieldRevision),
		o.C(order.FieldNumber), o.C(order.FieldStatus), o.C(order.FieldWorkflowID), o.C(order.FieldHubID),
		o.C(order.FieldCustomerRef), o.C(order.FieldPriority), o.C(order.FieldShipToName),
		o.C(order.FieldShipToLine1), o.C(order.FieldShipToLine2), o.C(order.FieldShipToCity),
		o.C(order.FieldShipToPostalCode), o.C(order.FieldShipToCountry), ts(o.C(order.FieldDueAt)),
		h.C(hub.FieldCode),
	).From(o).Join(h).On(o.C(order.FieldHubID), h.C(hub.FieldID)).
		Where(sql.In(o.C(order.FieldID), "")).Query()

	// Newest first, ties by id: the order of GraphQL's pager, read from the
	// index trackingentry_order_id_occurred_at_id.
	t, th := b.Table(trackingentry.Table).As("t"), b.Table(hub.Table).As("h")
	tq, _ := b.Select(trackingColumns(name, t, th)...).
		From(t).LeftJoin(th).On(t.C(trackingentry.FieldHubID), th.C(hub.FieldID)).
		Where(sql.In(t.C(trackingentry.FieldOrderID), "")).
		OrderExpr(sql.DescExpr(sql.Expr(t.C(trackingentry.FieldOccurredAt))), sql.Expr(t.C(trackingentry.FieldID))).
		Limit(latestTracking).Query()
	return orderStatements{order: oq, tracking: tq, pageTracking: buildPageTracking(name, trackingColumns(name, t, th)),
		pageID: o.C(order.FieldID)}
}

// trackingColumns are the columns scanTracking reads: an entry of t and its
// hub's code from th.
func trackingColumns(name string, t, th *sql.SelectTable) []string {
	ts := func(col string) string { return sqltime.Column(name, col) }
	return []string{
		t.C(trackingentry.FieldID), ts(t.C(trackingentry.FieldCreatedAt)), ts(t.C(trackingentry.FieldUpdatedAt)),
		t.C(trackingentry.FieldRevision), t.C(trackingentry.FieldOrderID), t.C(trackingentry.FieldTrackingNumber),
		t.C(trackingentry.FieldCarrier), t.C(trackingentry.FieldStatus), t.C(trackingentry.FieldHubID),
		t.C(trackingentry.FieldLocation), t.C(trackingentry.FieldDescription), ts(t.C(trackingentry.FieldOccurredAt)),
		th.C(hub.FieldCode),
	}
}

// buildPageTracking returns the text of the newest entries of a page of
// orders, around the predicate on their ids: an index seek per order that
// stops after latestTracking rows, as the floor of W3 does (LATERAL on
// PostgreSQL; SQLite has none, so a join on "id IN" the same subquery).
func buildPageTracking(name string, cols []string) [2]string {
	newest := `WHERE l.` + trackingentry.FieldOrderID + ` = o.` + order.FieldID +
		` ORDER BY l.` + trackingentry.FieldOccurredAt + ` DESC, l.` + trackingentry.FieldID + ` LIMIT ` + strconv.Itoa(latestTracking)
	from := `FROM ` + order.Table + ` o JOIN ` + trackingentry.Table + ` t ON t.` + trackingentry.FieldID +
		` IN (SELECT l.` + trackingentry.FieldID + ` FROM ` + trackingentry.Table + ` l ` + newest + `)`
	if name == dialect.Postgres {
		from = `FROM ` + order.Table + ` o CROSS JOIN LATERAL (SELECT * FROM ` + trackingentry.Table + ` l ` + newest + `) t`
	}
	return [2]string{
		`SELECT ` + strings.Join(cols, ", ") + ` ` + from + ` LEFT JOIN ` + hub.Table + ` h ON h.` + hub.FieldID +
			` = t.` + trackingentry.FieldHubID + ` WHERE `,
		` ORDER BY t.` + trackingentry.FieldOrderID + `, t.` + trackingentry.FieldOccurredAt + ` DESC, t.` + trackingentry.FieldID,
	}
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
	err := rows.Scan((*string)(&o.ID), sqltime.Time{T: &o.CreatedAt}, sqltime.Time{T: &o.UpdatedAt}, &o.Revision,
		&o.Number, &o.Status, (*string)(&o.WorkflowID), (*string)(&o.HubID),
		&o.CustomerRef, (*string)(&o.Priority), &o.ShipToName,
		&o.ShipToLine1, &o.ShipToLine2, &o.ShipToCity,
		&o.ShipToPostalCode, &o.ShipToCountry, sqltime.NullTime{T: &o.DueAt},
		&h.Code)
	if err != nil {
		return nil, err
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
		t, err := scanTracking(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// scanTracking reads the row of trackingColumns: an entry with its hub (id
// and code) when it has one.
func scanTracking(rows *sql.Rows) (*ent.TrackingEntry, error) {
	t := new(ent.TrackingEntry)
	var hubID, hubCode stdsql.NullString
	err := rows.Scan((*string)(&t.ID), sqltime.Time{T: &t.CreatedAt}, sqltime.Time{T: &t.UpdatedAt},
		&t.Revision, (*string)(&t.OrderID), &t.TrackingNumber,
		&t.Carrier, (*string)(&t.Status), &hubID,
		&t.Location, &t.Description, sqltime.Time{T: &t.OccurredAt},
		&hubCode)
	if err != nil {
		return nil, err
	}
	if hubID.Valid {
		hid := resourceid.ID(hubID.String)
		t.HubID = &hid
		t.Edges.Hub = &ent.Hub{ID: hid, Code: hubCode.String}
	}
	return t, nil
}

// embedLatestTracking fills the newest tracking entries (at most
// latestTracking, with their hubs' codes) of every order of a page in one
// statement; ent's eager load took two (entries, then their hubs) and read
// them for the page's look-ahead row too.
func embedLatestTracking(ctx context.Context, orders []*ent.Order) error {
	if len(orders) == 0 {
		return nil
	}
	drv := ent.FromContext(ctx).Driver()
	stmts := orderLoadStatements[drv.Dialect()]
	ids := make([]any, len(orders))
	byID := make(map[resourceid.ID]*ent.Order, len(orders))
	for i, o := range orders {
		ids[i], byID[o.ID] = o.ID, o
		o.Edges.TrackingEntries = []*ent.TrackingEntry{}
	}
	in := sql.In(stmts.pageID, ids...) // ent's builder: "?" or "$n" placeholders
	in.SetDialect(drv.Dialect())
	where, args := in.Query()
	rows := &sql.Rows{}
	if err := drv.Query(ctx, stmts.pageTracking[0]+where+stmts.pageTracking[1], args, rows); err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTracking(rows)
		if err != nil {
			return err
		}
		if o := byID[t.OrderID]; o != nil {
			o.Edges.TrackingEntries = append(o.Edges.TrackingEntries, t)
		}
	}
	return rows.Err()
}
