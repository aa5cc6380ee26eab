package service

import (
	"context"
	"time"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// CreateTrackingEntry records a carrier event for an order.
func (s *Service) CreateTrackingEntry(ctx context.Context, in ent.CreateTrackingEntryInput) (*ent.TrackingEntry, error) {
	r, err := s.trackingRefs(ctx, &in.OrderID, in.HubID)
	if err != nil {
		return nil, err
	}
	var t *ent.TrackingEntry
	err = WithTx(ctx, func(ctx context.Context) error {
		// Times to the microsecond, as stored, so that the event is
		// rendered from the row written, not read back (createdTracking).
		now := writeNow()
		create := client(ctx).TrackingEntry.Create().SetInput(in).SetCreatedAt(now).SetUpdatedAt(now)
		if in.OccurredAt == nil {
			at, err := clockNow(ctx, now)
			if err != nil {
				return err
			}
			create.SetOccurredAt(at)
		}
		var err error
		if t, err = create.Save(ctx); err != nil {
			return apperr.From(err)
		}
		row, err := createdTracking(ctx, t)
		if err != nil {
			return err
		}
		if err := s.emitCreatedFrom(ctx, "tracking_entry.created", t.ID, nil, row); err != nil {
			return err
		}
		return s.applyDelivered(ctx, t)
	})
	if err != nil {
		return nil, r.failed(ctx, err)
	}
	return t, nil
}

// createdTracking is the entry just written as GET
// /v1/tracking-entries/{id} reads it — with its hub's code, read by id when
// it has a hub — or nil when the row is not exactly what the database keeps
// (an occurred_at finer than the microsecond PostgreSQL keeps): its event is
// then rendered from the row read back. The entry is not read again inside
// the write lock (W5 appends one per request).
func createdTracking(ctx context.Context, t *ent.TrackingEntry) (any, error) {
	if !t.OccurredAt.Equal(t.OccurredAt.Truncate(time.Microsecond)) {
		return nil, nil
	}
	row := *t
	if t.HubID != nil {
		h, err := client(ctx).Hub.Query().Where(hub.ID(*t.HubID)).Select(hub.FieldID, hub.FieldCode).Only(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		row.Edges.Hub = h
	}
	return &row, nil
}

// UpdateTrackingEntry corrects a tracking entry. One that is delivered after
// the change applies its order's deliver transition as CreateTrackingEntry
// does (same conditions, same transaction).
func (s *Service) UpdateTrackingEntry(ctx context.Context, id resourceid.ID, in ent.UpdateTrackingEntryInput, rev *int) (*ent.TrackingEntry, error) {
	if err := checkID("id", id, resourceid.TrackingEntry); err != nil {
		return nil, notFound("tracking entry", id)
	}
	r, err := s.trackingRefs(ctx, in.OrderID, in.HubID)
	if err != nil {
		return nil, err
	}
	var t *ent.TrackingEntry
	err = WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		u := c.TrackingEntry.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(trackingentry.Revision(*rev))
		}
		if t, err = u.Save(ctx); ent.IsNotFound(err) {
			return revisionMismatch(ctx, "tracking entry", id, c.TrackingEntry.Query().Where(trackingentry.ID(id)).Exist)
		} else if err != nil {
			return apperr.From(err)
		}
		if err := s.emitUpdated(ctx, "tracking_entry.updated", id, before, nil); err != nil {
			return err
		}
		if in.Status == nil && in.OccurredAt == nil && in.OrderID == nil {
			return nil
		}
		// An entry edited to delivered (or moved, or re-dated) delivers its
		// order exactly as creating it would have.
		return s.applyDelivered(ctx, t)
	})
	if err != nil {
		return nil, r.failed(ctx, err)
	}
	return t, nil
}

// DeleteTrackingEntry removes a tracking entry.
func (s *Service) DeleteTrackingEntry(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.TrackingEntry); err != nil {
		return notFound("tracking entry", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		if err := client(ctx).TrackingEntry.DeleteOneID(id).Exec(ctx); ent.IsNotFound(err) {
			return notFound("tracking entry", id)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, "tracking_entry.deleted", id, last)
	})
}

// trackingRefs checks the ids of a tracking entry's order and hub (a 400
// for one of the wrong type) and returns the checks that they exist, run
// first or after a failed write (refs.go). As always, one problem at a
// time, in this order: the order id's type, the order's existence, the hub
// id's type, the hub's existence.
func (s *Service) trackingRefs(ctx context.Context, orderID, hubID *resourceid.ID) (refs, error) {
	orderMissing := func(ctx context.Context) ([]apperr.FieldError, error) {
		if orderID == nil {
			return nil, nil
		}
		return missing(ctx, "order_id", client(ctx).Order.Query().Where(order.ID(*orderID)).Exist, *orderID)
	}
	if orderID != nil {
		if err := checkID("order_id", *orderID, resourceid.Order); err != nil {
			return refs{}, err
		}
	}
	if hubID != nil {
		if err := checkID("hub_id", *hubID, resourceid.Hub); err != nil {
			// Failing anyway: a missing order still comes first.
			if err := problemsOrErr(orderMissing(ctx)); err != nil {
				return refs{}, err
			}
			return refs{}, err
		}
	}
	r := newRefs(ctx, func(ctx context.Context) ([]apperr.FieldError, error) {
		if p, err := orderMissing(ctx); err != nil || len(p) > 0 {
			return p, err
		}
		if hubID == nil {
			return nil, nil
		}
		return missing(ctx, "hub_id", client(ctx).Hub.Query().Where(hub.ID(*hubID)).Exist, *hubID)
	})
	if orderID == nil && hubID == nil {
		r = refs{}
	}
	return r, r.first(ctx)
}
