package demodata

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/reservation"
	"logistics/ent/trackingentry"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// loader is the sink that writes: it keeps up to batch rows of each table
// and writes them with one multi-row INSERT, reusing one prepared statement
// per table for full batches (plain database/sql: no per-row builders, so
// loading is bound by the database, not by Go). The orders' rows wait for
// a batch of orders and go in after them, parents before children.
type loader struct {
	ctx        context.Context
	tx         Execer
	dia        string
	workflowID resourceid.ID
	err        error

	hubs, parts, items, orders, lines, reservations, entries, events *rows
}

// rows is one table's batch in the making.
type rows struct {
	name string
	cols []string
	args []any // len(cols) values a row
	full *sql.Stmt
}

func newLoader(ctx context.Context, tx Execer, dia string, workflowID resourceid.ID) *loader {
	t := func(name string, cols ...string) *rows {
		return &rows{name: name, cols: cols, args: make([]any, 0, batch*len(cols))}
	}
	return &loader{ctx: ctx, tx: tx, dia: dia, workflowID: workflowID,
		hubs:         t(hub.Table, hub.FieldID, hub.FieldCreatedAt, hub.FieldUpdatedAt, hub.FieldRevision, hub.FieldCode, hub.FieldName, hub.FieldKind, hub.FieldAddressLine1, hub.FieldCity, hub.FieldPostalCode, hub.FieldCountry, hub.FieldLatitude, hub.FieldLongitude, hub.FieldTimezone, hub.FieldActive),
		parts:        t(part.Table, part.FieldID, part.FieldCreatedAt, part.FieldUpdatedAt, part.FieldRevision, part.FieldSku, part.FieldPartName, part.FieldDescription, part.FieldUnit, part.FieldUnitWeightKg, part.FieldHazardous),
		items:        t(item.Table, item.FieldID, item.FieldCreatedAt, item.FieldUpdatedAt, item.FieldRevision, item.FieldPartID, item.FieldHubID, item.FieldQuantity, item.FieldReservedQuantity, item.FieldLot, item.FieldSerial, item.FieldStatus, item.FieldExpiresAt),
		orders:       t(order.Table, order.FieldID, order.FieldCreatedAt, order.FieldUpdatedAt, order.FieldRevision, order.FieldNumber, order.FieldStatus, order.FieldWorkflowID, order.FieldHubID, order.FieldCustomerRef, order.FieldPriority, order.FieldShipToName, order.FieldShipToLine1, order.FieldShipToLine2, order.FieldShipToCity, order.FieldShipToPostalCode, order.FieldShipToCountry, order.FieldDueAt),
		lines:        t(orderline.Table, orderline.FieldID, orderline.FieldCreatedAt, orderline.FieldUpdatedAt, orderline.FieldRevision, orderline.FieldOrderID, orderline.FieldPartID, orderline.FieldQuantity, orderline.FieldAllocatedQuantity, orderline.FieldShippedQuantity),
		reservations: t(reservation.Table, reservation.FieldID, reservation.FieldCreatedAt, reservation.FieldUpdatedAt, reservation.FieldOrderID, reservation.FieldOrderLineID, reservation.FieldItemID, reservation.FieldQuantity),
		entries:      t(trackingentry.Table, trackingentry.FieldID, trackingentry.FieldCreatedAt, trackingentry.FieldUpdatedAt, trackingentry.FieldRevision, trackingentry.FieldOrderID, trackingentry.FieldTrackingNumber, trackingentry.FieldCarrier, trackingentry.FieldStatus, trackingentry.FieldHubID, trackingentry.FieldLocation, trackingentry.FieldDescription, trackingentry.FieldOccurredAt),
		events:       t(orderevent.Table, orderevent.FieldID, orderevent.FieldCreatedAt, orderevent.FieldUpdatedAt, orderevent.FieldOrderID, orderevent.FieldFromState, orderevent.FieldToState, orderevent.FieldTransition, orderevent.FieldActor, orderevent.FieldOccurredAt),
	}
}

func (l *loader) hub(h *ent.Hub) {
	l.add(l.hubs, h.ID, h.CreatedAt, h.UpdatedAt, h.Revision, h.Code, h.Name, string(h.Kind), h.AddressLine1, h.City,
		h.PostalCode, h.Country, h.Latitude, h.Longitude, h.Timezone, h.Active)
}

func (l *loader) part(p *ent.Part) {
	l.flush(l.hubs)
	l.add(l.parts, p.ID, p.CreatedAt, p.UpdatedAt, p.Revision, p.Sku, p.PartName, p.Description, string(p.Unit), int64(p.UnitWeightKg), p.Hazardous)
}

func (l *loader) item(it *ent.Item) {
	l.flush(l.parts)
	l.add(l.items, it.ID, it.CreatedAt, it.UpdatedAt, it.Revision, it.PartID, it.HubID, int64(it.Quantity), int64(it.ReservedQuantity),
		it.Lot, it.Serial, string(it.Status), it.ExpiresAt)
}

func (l *loader) line(ol *ent.OrderLine) {
	l.flush(l.items)
	l.add(l.lines, ol.ID, ol.CreatedAt, ol.UpdatedAt, ol.Revision, ol.OrderID, ol.PartID, int64(ol.Quantity), int64(ol.AllocatedQuantity), int64(ol.ShippedQuantity))
}

func (l *loader) reservation(r *ent.Reservation) {
	l.add(l.reservations, r.ID, Base, Base, r.OrderID, r.OrderLineID, r.ItemID, int64(r.Quantity))
}

func (l *loader) tracking(e *ent.TrackingEntry) {
	l.add(l.entries, e.ID, e.CreatedAt, e.UpdatedAt, e.Revision, e.OrderID, e.TrackingNumber, e.Carrier, string(e.Status), e.HubID,
		e.Location, e.Description, e.OccurredAt)
}

func (l *loader) event(e *ent.OrderEvent) {
	l.add(l.events, e.ID, e.CreatedAt, e.UpdatedAt, e.OrderID, e.FromState, e.ToState, e.Transition, e.Actor, e.OccurredAt)
}

// order adds an order after its lines, reservations, tracking and events;
// a full batch of orders goes in, and then what waited for them.
func (l *loader) order(o *ent.Order) {
	l.flush(l.items) // an order without lines
	l.add(l.orders, o.ID, o.CreatedAt, o.UpdatedAt, o.Revision, o.Number, o.Status, l.workflowID, o.HubID, o.CustomerRef, string(o.Priority),
		o.ShipToName, o.ShipToLine1, o.ShipToLine2, o.ShipToCity, o.ShipToPostalCode, o.ShipToCountry, o.DueAt)
	if len(l.orders.args) == cap(l.orders.args) {
		l.flushOrders()
	}
}

// flushOrders writes the orders kept and every row that refers to them.
func (l *loader) flushOrders() {
	for _, t := range []*rows{l.orders, l.lines, l.reservations, l.entries, l.events} {
		l.flush(t)
	}
}

// add keeps one row of t; hubs, parts and items go in when their batch is
// full. The orders wait for order (flushOrders), and their children for
// them, so a child table may hold more than one batch.
func (l *loader) add(t *rows, vals ...any) {
	t.args = append(t.args, vals...)
	if len(t.args) >= batch*len(t.cols) && (t == l.hubs || t == l.parts || t == l.items) {
		l.flush(t)
	}
}

// flush writes t's kept rows, batch by batch.
func (l *loader) flush(t *rows) {
	for l.err == nil && len(t.args) > 0 {
		n := min(len(t.args)/len(t.cols), batch)
		args := t.args[:n*len(t.cols)]
		if p, ok := l.tx.(preparer); ok && n == batch {
			if t.full == nil {
				t.full, l.err = p.PrepareContext(l.ctx, insertSQL(l.dia, t.name, t.cols, batch))
				if l.err != nil {
					break
				}
			}
			_, l.err = t.full.ExecContext(l.ctx, args...)
		} else {
			_, l.err = l.tx.ExecContext(l.ctx, insertSQL(l.dia, t.name, t.cols, n), args...)
		}
		if l.err != nil {
			l.err = fmt.Errorf("demodata: insert %s: %w", t.name, l.err)
		}
		rest := copy(t.args, t.args[len(args):])
		clear(t.args[rest:])
		t.args = t.args[:rest]
	}
}

// preparer is a transaction that prepares statements (database/sql's Tx).
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// finish writes what is left and closes the statements.
func (l *loader) finish() error {
	for _, t := range []*rows{l.hubs, l.parts, l.items} {
		l.flush(t)
	}
	l.flushOrders()
	for _, t := range []*rows{l.hubs, l.parts, l.items, l.orders, l.lines, l.reservations, l.entries, l.events} {
		if t.full != nil {
			t.full.Close()
		}
	}
	return l.err
}

// writeEvent writes Load's demo_data.loaded event with the counts c.
func writeEvent(ctx context.Context, tx *sql.Tx, dia string, c Counts) error {
	data, _ := json.Marshal(map[string]any{"object": c.EventObject()})
	// The event takes its number from the log's counter, in this
	// transaction: the counter row stays locked until the load commits.
	seq, err := eventlog.ReserveSQL(ctx, tx, dia, 1)
	if err != nil {
		return fmt.Errorf("demodata: %w", err)
	}
	cols := []string{event.FieldID, event.FieldCreatedAt, event.FieldUpdatedAt, event.FieldType, event.FieldSubjectID, event.FieldActor, event.FieldData, event.FieldSequence}
	_, err = tx.ExecContext(ctx, insertSQL(dia, event.Table, cols, 1),
		resourceid.New(resourceid.Event), Base, Base, "demo_data.loaded", "", Actor, string(data), seq)
	return err
}

// insertSQL is INSERT INTO name (cols) VALUES (…), … for rows rows, with the
// dialect's placeholders.
func insertSQL(dia, name string, cols []string, rows int) string {
	var b strings.Builder
	q := func(s string) string { return `"` + s + `"` }
	qc := make([]string, len(cols))
	for i, c := range cols {
		qc[i] = q(c)
	}
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", q(name), strings.Join(qc, ", "))
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		view.WritePlaceholders(&b, dia, n+1, len(cols), ",")
		n += len(cols)
		b.WriteByte(')')
	}
	return b.String()
}
