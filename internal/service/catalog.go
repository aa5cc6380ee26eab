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

// The catalogue's resources (hubs, parts) are written by the same rules:
// an id of the right type, one transaction, a revision check on update,
// no delete while other records refer to the row, and an event for every
// change. The rules are written once (createRow, updateRow, deleteRow); a
// catalogResource holds what differs, the ent calls of one resource.

// catalogResource is one resource of the catalogue: T its entity, C and U
// its create and update inputs.
type catalogResource[T any, C, U any] struct {
	name   string // "hub": its events are hub.created…, its errors say "hub <id>"
	prefix string // its ids' prefix (resourceid.Hub)
	id     func(*T) resourceid.ID
	create func(ctx context.Context, in C) (*T, error)
	// update sets in and adds one to the revision; with rev set, only
	// where the row is still at rev.
	update func(ctx context.Context, id resourceid.ID, in U, rev *int) (*T, error)
	exists func(ctx context.Context, id resourceid.ID) (bool, error)
	delete func(ctx context.Context, id resourceid.ID) error
	// refs counts, by name, the records that refer to the row.
	refs func(c *ent.Client, id resourceid.ID) map[string]func(context.Context) (int, error)
}

var hubs = catalogResource[ent.Hub, ent.CreateHubInput, ent.UpdateHubInput]{
	name: "hub", prefix: resourceid.Hub,
	id: func(h *ent.Hub) resourceid.ID { return h.ID },
	create: func(ctx context.Context, in ent.CreateHubInput) (*ent.Hub, error) {
		return client(ctx).Hub.Create().SetInput(in).Save(ctx)
	},
	update: func(ctx context.Context, id resourceid.ID, in ent.UpdateHubInput, rev *int) (*ent.Hub, error) {
		u := client(ctx).Hub.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(hub.Revision(*rev))
		}
		return u.Save(ctx)
	},
	exists: func(ctx context.Context, id resourceid.ID) (bool, error) {
		return client(ctx).Hub.Query().Where(hub.ID(id)).Exist(ctx)
	},
	delete: func(ctx context.Context, id resourceid.ID) error { return client(ctx).Hub.DeleteOneID(id).Exec(ctx) },
	refs: func(c *ent.Client, id resourceid.ID) map[string]func(context.Context) (int, error) {
		return map[string]func(context.Context) (int, error){
			"items":            c.Item.Query().Where(item.HubID(id)).Count,
			"orders":           c.Order.Query().Where(order.HubID(id)).Count,
			"tracking_entries": c.TrackingEntry.Query().Where(trackingentry.HubID(id)).Count,
		}
	},
}

var parts = catalogResource[ent.Part, ent.CreatePartInput, ent.UpdatePartInput]{
	name: "part", prefix: resourceid.Part,
	id: func(p *ent.Part) resourceid.ID { return p.ID },
	create: func(ctx context.Context, in ent.CreatePartInput) (*ent.Part, error) {
		return client(ctx).Part.Create().SetInput(in).Save(ctx)
	},
	update: func(ctx context.Context, id resourceid.ID, in ent.UpdatePartInput, rev *int) (*ent.Part, error) {
		u := client(ctx).Part.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(part.Revision(*rev))
		}
		return u.Save(ctx)
	},
	exists: func(ctx context.Context, id resourceid.ID) (bool, error) {
		return client(ctx).Part.Query().Where(part.ID(id)).Exist(ctx)
	},
	delete: func(ctx context.Context, id resourceid.ID) error { return client(ctx).Part.DeleteOneID(id).Exec(ctx) },
	// A part with stock or on an order stays.
	refs: func(c *ent.Client, id resourceid.ID) map[string]func(context.Context) (int, error) {
		return map[string]func(context.Context) (int, error){
			"items":       c.Item.Query().Where(item.PartID(id)).Count,
			"order_lines": c.OrderLine.Query().Where(orderline.PartID(id)).Count,
		}
	},
}

// CreateHub adds a hub.
func (s *Service) CreateHub(ctx context.Context, in ent.CreateHubInput) (*ent.Hub, error) {
	return createRow(ctx, s, hubs, in)
}

// UpdateHub changes a hub; with rev set, only if it is still at that revision.
func (s *Service) UpdateHub(ctx context.Context, id resourceid.ID, in ent.UpdateHubInput, rev *int) (*ent.Hub, error) {
	return updateRow(ctx, s, hubs, id, in, rev)
}

// DeleteHub removes a hub that nothing refers to any more.
func (s *Service) DeleteHub(ctx context.Context, id resourceid.ID) error {
	return deleteRow(ctx, s, hubs, id)
}

// CreatePart adds a part to the catalogue.
func (s *Service) CreatePart(ctx context.Context, in ent.CreatePartInput) (*ent.Part, error) {
	return createRow(ctx, s, parts, in)
}

// UpdatePart changes a part; with rev set, only if it is still at that revision.
func (s *Service) UpdatePart(ctx context.Context, id resourceid.ID, in ent.UpdatePartInput, rev *int) (*ent.Part, error) {
	return updateRow(ctx, s, parts, id, in, rev)
}

// DeletePart removes a part that has no stock and is on no order.
func (s *Service) DeletePart(ctx context.Context, id resourceid.ID) error {
	return deleteRow(ctx, s, parts, id)
}

// createRow adds a row of r and its <name>.created event, in one transaction.
func createRow[T, C, U any](ctx context.Context, s *Service, r catalogResource[T, C, U], in C) (*T, error) {
	var row *T
	err := WithTx(ctx, func(ctx context.Context) error {
		var err error
		if row, err = r.create(ctx, in); err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, r.name+".created", r.id(row), nil)
	})
	return row, err
}

// updateRow changes a row of r and writes its <name>.updated event with
// the row as it was; a stale rev is a 412, a missing row a 404.
func updateRow[T, C, U any](ctx context.Context, s *Service, r catalogResource[T, C, U], id resourceid.ID, in U, rev *int) (*T, error) {
	if err := checkID("id", id, r.prefix); err != nil {
		return nil, notFound(r.name, id)
	}
	var row *T
	err := WithTx(ctx, func(ctx context.Context) error {
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		if row, err = r.update(ctx, id, in, rev); ent.IsNotFound(err) {
			return revisionMismatch(ctx, r.name, id, func(ctx context.Context) (bool, error) { return r.exists(ctx, id) })
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, r.name+".updated", id, before, nil)
	})
	return row, err
}

// deleteRow removes a row of r that no record refers to (else a 409 that
// counts the references) and writes its <name>.deleted event with its last
// state.
func deleteRow[T, C, U any](ctx context.Context, s *Service, r catalogResource[T, C, U], id resourceid.ID) error {
	if err := checkID("id", id, r.prefix); err != nil {
		return notFound(r.name, id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		refs, err := countRefs(ctx, r.refs(client(ctx), id))
		if err != nil {
			return err
		}
		if len(refs) > 0 {
			return stillReferenced(r.name, id, refs)
		}
		if err := r.delete(ctx, id); ent.IsNotFound(err) {
			return notFound(r.name, id)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, r.name+".deleted", id, last)
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
