package service

import (
	"context"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// CreateHub adds a hub.
func (s *Service) CreateHub(ctx context.Context, in ent.CreateHubInput) (*ent.Hub, error) {
	var h *ent.Hub
	err := WithTx(ctx, func(ctx context.Context) error {
		var err error
		if h, err = client(ctx).Hub.Create().SetInput(in).Save(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, "hub.created", h.ID, nil)
	})
	return h, err
}

// UpdateHub changes a hub; with rev set, only if it is still at that revision.
func (s *Service) UpdateHub(ctx context.Context, id resourceid.ID, in ent.UpdateHubInput, rev *int) (*ent.Hub, error) {
	if err := checkID("id", id, resourceid.Hub); err != nil {
		return nil, notFound("hub", id)
	}
	var h *ent.Hub
	err := WithTx(ctx, func(ctx context.Context) error {
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		u := client(ctx).Hub.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(hub.Revision(*rev))
		}
		if h, err = u.Save(ctx); ent.IsNotFound(err) {
			return revisionMismatch(ctx, "hub", id, client(ctx).Hub.Query().Where(hub.ID(id)).Exist)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, "hub.updated", id, before, nil)
	})
	return h, err
}

// DeleteHub removes a hub that nothing refers to any more.
func (s *Service) DeleteHub(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.Hub); err != nil {
		return notFound("hub", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		refs, err := countRefs(ctx, map[string]func(context.Context) (int, error){
			"items":            c.Item.Query().Where(item.HubID(id)).Count,
			"orders":           c.Order.Query().Where(order.HubID(id)).Count,
			"tracking_entries": c.TrackingEntry.Query().Where(trackingentry.HubID(id)).Count,
		})
		if err != nil {
			return err
		}
		if len(refs) > 0 {
			return stillReferenced("hub", id, refs)
		}
		if err := c.Hub.DeleteOneID(id).Exec(ctx); ent.IsNotFound(err) {
			return notFound("hub", id)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, "hub.deleted", id, last)
	})
}

// CreatePart adds a part to the catalogue.
func (s *Service) CreatePart(ctx context.Context, in ent.CreatePartInput) (*ent.Part, error) {
	var p *ent.Part
	err := WithTx(ctx, func(ctx context.Context) error {
		var err error
		if p, err = client(ctx).Part.Create().SetInput(in).Save(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, "part.created", p.ID, nil)
	})
	return p, err
}

// UpdatePart changes a part; with rev set, only if it is still at that revision.
func (s *Service) UpdatePart(ctx context.Context, id resourceid.ID, in ent.UpdatePartInput, rev *int) (*ent.Part, error) {
	if err := checkID("id", id, resourceid.Part); err != nil {
		return nil, notFound("part", id)
	}
	var p *ent.Part
	err := WithTx(ctx, func(ctx context.Context) error {
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		u := client(ctx).Part.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(part.Revision(*rev))
		}
		if p, err = u.Save(ctx); ent.IsNotFound(err) {
			return revisionMismatch(ctx, "part", id, client(ctx).Part.Query().Where(part.ID(id)).Exist)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, "part.updated", id, before, nil)
	})
	return p, err
}

// DeletePart removes a part that has no stock and is on no order.
func (s *Service) DeletePart(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.Part); err != nil {
		return notFound("part", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		refs, err := countRefs(ctx, map[string]func(context.Context) (int, error){
			"items":       c.Item.Query().Where(item.PartID(id)).Count,
			"order_lines": c.OrderLine.Query().Where(orderline.PartID(id)).Count,
		})
		if err != nil {
			return err
		}
		if len(refs) > 0 {
			return stillReferenced("part", id, refs)
		}
		if err := c.Part.DeleteOneID(id).Exec(ctx); ent.IsNotFound(err) {
			return notFound("part", id)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, "part.deleted", id, last)
	})
}

// countRefs runs the counters and keeps the non-zero ones.
func countRefs(ctx context.Context, counters map[string]func(context.Context) (int, error)) (map[string]int, error) {
	refs := map[string]int{}
	for name, count := range counters {
		n, err := count(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		if n > 0 {
			refs[name] = n
		}
	}
	return refs, nil
}
