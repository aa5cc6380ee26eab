package service

import (
	"context"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// CreateTrackingEntry records a carrier event for an order.
func (s *Service) CreateTrackingEntry(ctx context.Context, in ent.CreateTrackingEntryInput) (*ent.TrackingEntry, error) {
	if err := s.checkTrackingRefs(ctx, &in.OrderID, in.HubID); err != nil {
		return nil, err
	}
	var t *ent.TrackingEntry
	err := WithTx(ctx, func(ctx context.Context) error {
		var err error
		if t, err = client(ctx).TrackingEntry.Create().SetInput(in).Save(ctx); err != nil {
			return apperr.From(err)
		}
		if err := s.emitCreated(ctx, "tracking_entry.created", t.ID, nil); err != nil {
			return err
		}
		return s.applyDelivered(ctx, t)
	})
	return t, err
}

// UpdateTrackingEntry corrects a tracking entry. One that is delivered after
// the change applies its order's deliver transition as CreateTrackingEntry
// does (same conditions, same transaction).
func (s *Service) UpdateTrackingEntry(ctx context.Context, id resourceid.ID, in ent.UpdateTrackingEntryInput, rev *int) (*ent.TrackingEntry, error) {
	if err := checkID("id", id, resourceid.TrackingEntry); err != nil {
		return nil, notFound("tracking entry", id)
	}
	if err := s.checkTrackingRefs(ctx, in.OrderID, in.HubID); err != nil {
		return nil, err
	}
	var t *ent.TrackingEntry
	err := WithTx(ctx, func(ctx context.Context) error {
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
	return t, err
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

func (s *Service) checkTrackingRefs(ctx context.Context, orderID, hubID *resourceid.ID) error {
	if orderID != nil {
		if err := checkID("order_id", *orderID, resourceid.Order); err != nil {
			return err
		}
		if err := mustExist(ctx, "order_id", client(ctx).Order.Query().Where(order.ID(*orderID)).Exist, *orderID); err != nil {
			return err
		}
	}
	if hubID != nil {
		if err := checkID("hub_id", *hubID, resourceid.Hub); err != nil {
			return err
		}
		if err := mustExist(ctx, "hub_id", client(ctx).Hub.Query().Where(hub.ID(*hubID)).Exist, *hubID); err != nil {
			return err
		}
	}
	return nil
}
