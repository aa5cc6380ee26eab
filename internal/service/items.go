package service

import (
	"context"
	"strings"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/part"
	"logistics/ent/reservation"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// CreateItem records stock of a part at a hub.
func (s *Service) CreateItem(ctx context.Context, in ent.CreateItemInput) (*ent.Item, error) {
	if err := checkItemRefs(ctx, &in.PartID, &in.HubID); err != nil {
		return nil, err
	}
	var it *ent.Item
	err := WithTx(ctx, func(ctx context.Context) error {
		var err error
		if it, err = client(ctx).Item.Create().SetInput(in).Save(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, "item.created", it.ID, nil)
	})
	return it, err
}

// UpdateItem changes stock. The quantity may not drop below what is
// reserved, and reserved stock may not move to another part or hub nor
// leave the available status: the orders that hold it (named in the 409)
// must be cancelled, or their stock moved, first.
func (s *Service) UpdateItem(ctx context.Context, id resourceid.ID, in ent.UpdateItemInput, rev *int) (*ent.Item, error) {
	if err := checkID("id", id, resourceid.Item); err != nil {
		return nil, notFound("item", id)
	}
	if err := checkItemRefs(ctx, in.PartID, in.HubID); err != nil {
		return nil, err
	}
	var it *ent.Item
	err := WithTx(ctx, func(ctx context.Context) error {
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		u := client(ctx).Item.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(item.Revision(*rev))
		}
		if in.Quantity != nil {
			// Checked in the UPDATE itself, so a concurrent reservation cannot slip in between.
			u.Where(item.ReservedQuantityLTE(*in.Quantity))
		}
		if in.PartID != nil || in.HubID != nil || (in.Status != nil && *in.Status != item.StatusAvailable) {
			// Reserved stock ships from this item: it may not move, nor
			// become stock that is never reserved (quarantined, damaged).
			u.Where(item.ReservedQuantity(0))
		}
		if it, err = u.Save(ctx); ent.IsNotFound(err) {
			return s.explainItemUpdate(ctx, id, in, rev)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, "item.updated", id, before, nil)
	})
	return it, err
}

// explainItemUpdate says why the conditional update matched no row.
func (s *Service) explainItemUpdate(ctx context.Context, id resourceid.ID, in ent.UpdateItemInput, rev *int) error {
	cur, err := client(ctx).Item.Get(ctx, id)
	if ent.IsNotFound(err) {
		return notFound("item", id)
	} else if err != nil {
		return apperr.From(err)
	}
	if rev != nil && cur.Revision != *rev {
		return revisionMismatch(ctx, "item", id, client(ctx).Item.Query().Where(item.ID(id)).Exist)
	}
	if in.Quantity != nil && *in.Quantity < cur.ReservedQuantity {
		return apperr.Conflict("below_reserved", "quantity %s is below the %s reserved for orders", in.Quantity, cur.ReservedQuantity)
	}
	moves := in.PartID != nil || in.HubID != nil
	if (!moves && in.Status == nil) || cur.ReservedQuantity == 0 {
		// What stopped the UPDATE changed again before this read (a
		// reservation made, then released): nothing to name but the race.
		return apperr.Conflict("concurrent_update", "item %s changed while it was being updated: retry", id)
	}
	orders, more, err := reservingOrders(ctx, id)
	if err != nil {
		return err
	}
	what := "moving it"
	if !moves {
		what = "changing its status to " + string(*in.Status)
	}
	e := apperr.Conflict("stock_reserved", "item %s has %s reserved for orders %s: cancel them or move their stock before %s",
		id, cur.ReservedQuantity, orderList(orders, more), what).WithDetail("orders", orders)
	if more {
		e.WithDetail("more_orders", true)
	}
	return e
}

// maxNamedOrders bounds the orders a stock_reserved conflict names.
const maxNamedOrders = 20

// reservingOrders returns the orders that hold reservations of the item,
// at most maxNamedOrders of them, in id order; more says there are others.
func reservingOrders(ctx context.Context, id resourceid.ID) (orders []resourceid.ID, more bool, err error) {
	var rows []struct {
		OrderID resourceid.ID `json:"order_id"`
	}
	err = client(ctx).Reservation.Query().Where(reservation.ItemID(id)).
		Order(reservation.ByOrderID()).Limit(maxNamedOrders+1).
		GroupBy(reservation.FieldOrderID).Scan(ctx, &rows)
	if err != nil {
		return nil, false, apperr.From(err)
	}
	for _, r := range rows {
		orders = append(orders, r.OrderID)
	}
	if len(orders) > maxNamedOrders {
		return orders[:maxNamedOrders], true, nil
	}
	return orders, false, nil
}

func orderList(orders []resourceid.ID, more bool) string {
	s := make([]string, len(orders))
	for i, o := range orders {
		s[i] = string(o)
	}
	out := strings.Join(s, ", ")
	if more {
		out += " and more"
	}
	return out
}

// DeleteItem removes stock that holds no reservation.
func (s *Service) DeleteItem(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.Item); err != nil {
		return notFound("item", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		n, err := client(ctx).Item.Delete().Where(item.ID(id), item.ReservedQuantity(0)).Exec(ctx)
		if err != nil {
			return apperr.From(err)
		}
		if n == 0 {
			ok, err := client(ctx).Item.Query().Where(item.ID(id)).Exist(ctx)
			if err != nil {
				return apperr.From(err)
			}
			if !ok {
				return notFound("item", id)
			}
			return apperr.Conflict("stock_reserved", "item %s holds reservations and cannot be deleted", id)
		}
		return s.emitDeleted(ctx, "item.deleted", id, last)
	})
}

// checkItemRefs checks the part and hub an item points at (either may be nil).
func checkItemRefs(ctx context.Context, partID, hubID *resourceid.ID) error {
	if partID != nil {
		if err := checkID("part_id", *partID, resourceid.Part); err != nil {
			return err
		}
		if err := mustExist(ctx, "part_id", client(ctx).Part.Query().Where(part.ID(*partID)).Exist, *partID); err != nil {
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
