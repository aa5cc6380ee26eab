package demodata

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

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

// table is one bulk insert: a table, its columns and a row writer.
type table struct {
	name string
	cols []string
	n    int
	row  func(i int, dst []any) // fills dst (len(cols)) with row i
}

// insert writes d in one SQL transaction with multi-row INSERTs of up to
// batch rows, reusing one prepared statement per table (plain database/sql:
// no per-row builders, so loading is bound by the database, not by Go).
func (d *Dataset) insert(ctx context.Context, tx *sql.Tx, dia string, workflowID resourceid.ID) error {
	tables := []table{
		{hub.Table, []string{hub.FieldID, hub.FieldCreatedAt, hub.FieldUpdatedAt, hub.FieldRevision, hub.FieldCode, hub.FieldName, hub.FieldKind, hub.FieldAddressLine1, hub.FieldCity, hub.FieldPostalCode, hub.FieldCountry, hub.FieldLatitude, hub.FieldLongitude, hub.FieldTimezone, hub.FieldActive}, len(d.Hubs), func(i int, v []any) {
			h := d.Hubs[i]
			copy(v, []any{h.ID, h.CreatedAt, h.UpdatedAt, h.Revision, h.Code, h.Name, string(h.Kind), h.AddressLine1, h.City,
				h.PostalCode, h.Country, h.Latitude, h.Longitude, h.Timezone, h.Active})
		}},
		{part.Table, []string{part.FieldID, part.FieldCreatedAt, part.FieldUpdatedAt, part.FieldRevision, part.FieldSku, part.FieldPartName, part.FieldDescription, part.FieldUnit, part.FieldUnitWeightKg, part.FieldHazardous}, len(d.Parts), func(i int, v []any) {
			p := d.Parts[i]
			copy(v, []any{p.ID, p.CreatedAt, p.UpdatedAt, p.Revision, p.Sku, p.PartName, p.Description, string(p.Unit), int64(p.UnitWeightKg), p.Hazardous})
		}},
		{item.Table, []string{item.FieldID, item.FieldCreatedAt, item.FieldUpdatedAt, item.FieldRevision, item.FieldPartID, item.FieldHubID, item.FieldQuantity, item.FieldReservedQuantity, item.FieldLot, item.FieldSerial, item.FieldStatus, item.FieldExpiresAt}, len(d.Items), func(i int, v []any) {
			it := d.Items[i]
			copy(v, []any{it.ID, it.CreatedAt, it.UpdatedAt, it.Revision, it.PartID, it.HubID, int64(it.Quantity), int64(it.ReservedQuantity),
				it.Lot, it.Serial, string(it.Status), it.ExpiresAt})
		}},
		{order.Table, []string{order.FieldID, order.FieldCreatedAt, order.FieldUpdatedAt, order.FieldRevision, order.FieldNumber, order.FieldStatus, order.FieldWorkflowID, order.FieldHubID, order.FieldCustomerRef, order.FieldPriority, order.FieldShipToName, order.FieldShipToLine1, order.FieldShipToLine2, order.FieldShipToCity, order.FieldShipToPostalCode, order.FieldShipToCountry, order.FieldDueAt}, len(d.Orders), func(i int, v []any) {
			o := d.Orders[i]
			copy(v, []any{o.ID, o.CreatedAt, o.UpdatedAt, o.Revision, o.Number, o.Status, workflowID, o.HubID, o.CustomerRef, string(o.Priority),
				o.ShipToName, o.ShipToLine1, o.ShipToLine2, o.ShipToCity, o.ShipToPostalCode, o.ShipToCountry, o.DueAt})
		}},
		{orderline.Table, []string{orderline.FieldID, orderline.FieldCreatedAt, orderline.FieldUpdatedAt, orderline.FieldRevision, orderline.FieldOrderID, orderline.FieldPartID, orderline.FieldQuantity, orderline.FieldAllocatedQuantity, orderline.FieldShippedQuantity}, len(d.Lines), func(i int, v []any) {
			l := d.Lines[i]
			copy(v, []any{l.ID, l.CreatedAt, l.UpdatedAt, l.Revision, l.OrderID, l.PartID, int64(l.Quantity), int64(l.AllocatedQuantity), int64(l.ShippedQuantity)})
		}},
		{reservation.Table, []string{reservation.FieldID, reservation.FieldCreatedAt, reservation.FieldUpdatedAt, reservation.FieldOrderID, reservation.FieldOrderLineID, reservation.FieldItemID, reservation.FieldQuantity}, len(d.Reservations), func(i int, v []any) {
			r := d.Reservations[i]
			copy(v, []any{r.ID, Base, Base, r.OrderID, r.OrderLineID, r.ItemID, int64(r.Quantity)})
		}},
		{trackingentry.Table, []string{trackingentry.FieldID, trackingentry.FieldCreatedAt, trackingentry.FieldUpdatedAt, trackingentry.FieldRevision, trackingentry.FieldOrderID, trackingentry.FieldTrackingNumber, trackingentry.FieldCarrier, trackingentry.FieldStatus, trackingentry.FieldHubID, trackingentry.FieldLocation, trackingentry.FieldDescription, trackingentry.FieldOccurredAt}, len(d.Tracking), func(i int, v []any) {
			e := d.Tracking[i]
			copy(v, []any{e.ID, e.CreatedAt, e.UpdatedAt, e.Revision, e.OrderID, e.TrackingNumber, e.Carrier, string(e.Status), e.HubID,
				e.Location, e.Description, e.OccurredAt})
		}},
		{orderevent.Table, []string{orderevent.FieldID, orderevent.FieldCreatedAt, orderevent.FieldUpdatedAt, orderevent.FieldOrderID, orderevent.FieldFromState, orderevent.FieldToState, orderevent.FieldTransition, orderevent.FieldActor, orderevent.FieldOccurredAt}, len(d.Events), func(i int, v []any) {
			e := d.Events[i]
			copy(v, []any{e.ID, e.CreatedAt, e.UpdatedAt, e.OrderID, e.FromState, e.ToState, e.Transition, e.Actor, e.OccurredAt})
		}},
	}
	for _, t := range tables {
		if err := bulkInsert(ctx, tx, dia, t); err != nil {
			return fmt.Errorf("demodata: insert %s: %w", t.name, err)
		}
	}
	data, _ := json.Marshal(map[string]any{"object": map[string]any{"hubs": len(d.Hubs), "parts": len(d.Parts), "items": len(d.Items), "orders": len(d.Orders)}})
	// The event takes its number from the log's counter, in this
	// transaction: the counter row stays locked until the load commits.
	seq, err := eventlog.ReserveSQL(ctx, tx, dia, 1)
	if err != nil {
		return fmt.Errorf("demodata: %w", err)
	}
	ev := table{event.Table, []string{event.FieldID, event.FieldCreatedAt, event.FieldUpdatedAt, event.FieldType, event.FieldSubjectID, event.FieldActor, event.FieldData, event.FieldSequence}, 1, func(_ int, v []any) {
		copy(v, []any{resourceid.New(resourceid.Event), Base, Base, "demo_data.loaded", "", Actor, string(data), seq})
	}}
	return bulkInsert(ctx, tx, dia, ev)
}

// bulkInsert inserts t's rows batch by batch; full batches share one
// prepared statement.
func bulkInsert(ctx context.Context, tx *sql.Tx, dia string, t table) error {
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, batch*len(t.cols))
	for lo := 0; lo < t.n; lo += batch {
		hi := min(lo+batch, t.n)
		args = args[:(hi-lo)*len(t.cols)]
		for i := lo; i < hi; i++ {
			t.row(i, args[(i-lo)*len(t.cols):(i-lo+1)*len(t.cols)])
		}
		var err error
		if hi-lo == batch {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insertSQL(dia, t.name, t.cols, batch)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, insertSQL(dia, t.name, t.cols, hi-lo), args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
