package demodata

import (
	"context"
	"fmt"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// insert writes d with multi-row INSERTs of up to batch rows each.
func (d *Dataset) insert(ctx context.Context, c *ent.Client, workflowID resourceid.ID) error {
	steps := []struct {
		what string
		n    int
		run  func(lo, hi int) error
	}{
		{"hubs", len(d.Hubs), func(lo, hi int) error {
			b := make([]*ent.HubCreate, 0, hi-lo)
			for _, h := range d.Hubs[lo:hi] {
				b = append(b, c.Hub.Create().SetID(h.ID).SetCode(h.Code).SetName(h.Name).SetKind(h.Kind).
					SetAddressLine1(h.AddressLine1).SetCity(h.City).SetPostalCode(h.PostalCode).SetCountry(h.Country).
					SetNillableLatitude(h.Latitude).SetNillableLongitude(h.Longitude).SetTimezone(h.Timezone).SetActive(h.Active).
					SetCreatedAt(h.CreatedAt).SetUpdatedAt(h.UpdatedAt))
			}
			return c.Hub.CreateBulk(b...).Exec(ctx)
		}},
		{"parts", len(d.Parts), func(lo, hi int) error {
			b := make([]*ent.PartCreate, 0, hi-lo)
			for _, p := range d.Parts[lo:hi] {
				b = append(b, c.Part.Create().SetID(p.ID).SetSku(p.Sku).SetPartName(p.PartName).SetDescription(p.Description).
					SetUnit(p.Unit).SetUnitWeightKg(p.UnitWeightKg).SetHazardous(p.Hazardous).
					SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt))
			}
			return c.Part.CreateBulk(b...).Exec(ctx)
		}},
		{"items", len(d.Items), func(lo, hi int) error {
			b := make([]*ent.ItemCreate, 0, hi-lo)
			for _, it := range d.Items[lo:hi] {
				b = append(b, c.Item.Create().SetID(it.ID).SetPartID(it.PartID).SetHubID(it.HubID).
					SetQuantity(it.Quantity).SetReservedQuantity(it.ReservedQuantity).SetLot(it.Lot).SetSerial(it.Serial).
					SetStatus(it.Status).SetNillableExpiresAt(it.ExpiresAt).SetRevision(it.Revision).
					SetCreatedAt(it.CreatedAt).SetUpdatedAt(it.UpdatedAt))
			}
			return c.Item.CreateBulk(b...).Exec(ctx)
		}},
		{"orders", len(d.Orders), func(lo, hi int) error {
			b := make([]*ent.OrderCreate, 0, hi-lo)
			for _, o := range d.Orders[lo:hi] {
				b = append(b, c.Order.Create().SetID(o.ID).SetNumber(o.Number).SetStatus(o.Status).SetWorkflowID(workflowID).
					SetHubID(o.HubID).SetCustomerRef(o.CustomerRef).SetPriority(o.Priority).SetShipToName(o.ShipToName).
					SetShipToLine1(o.ShipToLine1).SetShipToCity(o.ShipToCity).SetShipToPostalCode(o.ShipToPostalCode).
					SetShipToCountry(o.ShipToCountry).SetNillableDueAt(o.DueAt).SetRevision(o.Revision).
					SetCreatedAt(o.CreatedAt).SetUpdatedAt(o.UpdatedAt))
			}
			return c.Order.CreateBulk(b...).Exec(ctx)
		}},
		{"order lines", len(d.Lines), func(lo, hi int) error {
			b := make([]*ent.OrderLineCreate, 0, hi-lo)
			for _, l := range d.Lines[lo:hi] {
				b = append(b, c.OrderLine.Create().SetID(l.ID).SetOrderID(l.OrderID).SetPartID(l.PartID).SetQuantity(l.Quantity).
					SetAllocatedQuantity(l.AllocatedQuantity).SetShippedQuantity(l.ShippedQuantity).
					SetCreatedAt(l.CreatedAt).SetUpdatedAt(l.UpdatedAt))
			}
			return c.OrderLine.CreateBulk(b...).Exec(ctx)
		}},
		{"reservations", len(d.Reservations), func(lo, hi int) error {
			b := make([]*ent.ReservationCreate, 0, hi-lo)
			for _, r := range d.Reservations[lo:hi] {
				b = append(b, c.Reservation.Create().SetID(r.ID).SetOrderID(r.OrderID).SetOrderLineID(r.OrderLineID).
					SetItemID(r.ItemID).SetQuantity(r.Quantity).SetCreatedAt(Base).SetUpdatedAt(Base))
			}
			return c.Reservation.CreateBulk(b...).Exec(ctx)
		}},
		{"tracking entries", len(d.Tracking), func(lo, hi int) error {
			b := make([]*ent.TrackingEntryCreate, 0, hi-lo)
			for _, t := range d.Tracking[lo:hi] {
				b = append(b, c.TrackingEntry.Create().SetID(t.ID).SetOrderID(t.OrderID).SetTrackingNumber(t.TrackingNumber).
					SetCarrier(t.Carrier).SetStatus(t.Status).SetNillableHubID(t.HubID).SetLocation(t.Location).
					SetDescription(t.Description).SetOccurredAt(t.OccurredAt).SetCreatedAt(t.CreatedAt).SetUpdatedAt(t.UpdatedAt))
			}
			return c.TrackingEntry.CreateBulk(b...).Exec(ctx)
		}},
		{"order events", len(d.Events), func(lo, hi int) error {
			b := make([]*ent.OrderEventCreate, 0, hi-lo)
			for _, e := range d.Events[lo:hi] {
				b = append(b, c.OrderEvent.Create().SetID(e.ID).SetOrderID(e.OrderID).SetFromState(e.FromState).SetToState(e.ToState).
					SetTransition(e.Transition).SetActor(e.Actor).SetOccurredAt(e.OccurredAt).SetCreatedAt(e.CreatedAt).SetUpdatedAt(e.UpdatedAt))
			}
			return c.OrderEvent.CreateBulk(b...).Exec(ctx)
		}},
	}
	for _, s := range steps {
		for lo := 0; lo < s.n; lo += batch {
			if err := s.run(lo, min(lo+batch, s.n)); err != nil {
				return fmt.Errorf("demodata: insert %s: %w", s.what, err)
			}
		}
	}
	return c.Event.Create().SetType("demo_data.loaded").SetSubjectID("").SetActor(Actor).
		SetData(map[string]any{"hubs": len(d.Hubs), "parts": len(d.Parts), "items": len(d.Items), "orders": len(d.Orders)}).Exec(ctx)
}
