package rest

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/part"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// itemIn is the body of POST and PATCH /v1/items: the part by part_id or
// sku, the hub by hub (its code) or hub_id.
type itemIn struct {
	PartID    *resourceid.ID   `json:"part_id"`
	SKU       *string          `json:"sku"`
	HubID     *resourceid.ID   `json:"hub_id"`
	Hub       *string          `json:"hub"`
	Quantity  *decimal.Decimal `json:"quantity"`
	Lot       *string          `json:"lot"`
	Serial    *string          `json:"serial"`
	Status    *item.Status     `json:"status"`
	ExpiresAt *time.Time       `json:"expires_at"`
}

// items is the adapter of /v1/items.
func (d Deps) items() *resource[*ent.Item, ent.ItemWhereInput, view.ItemJSON, itemIn] {
	return &resource[*ent.Item, ent.ItemWhereInput, view.ItemJSON, itemIn]{
		what: "item", prefix: resourceid.Item, table: filter.ItemTable, parse: filter.Items,
		page: func(r *http.Request, where *ent.ItemWhereInput, p page) ([]*ent.Item, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := view.ItemRefs(ent.FromContext(ctx).Item.Query()).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithItemOrder(orderBy(p.sort, newItemOrder)), ent.WithItemFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			rows, cursor, err := nodes(conn.Edges, conn.PageInfo, func(e *ent.ItemEdge) *ent.Item { return e.Node })
			if err == nil {
				err = view.ItemRefEdges(rows)
			}
			return rows, cursor, err
		},
		load:   view.LoadItem,
		render: plain(view.RenderItem),
		key:    func(it *ent.Item) (resourceid.ID, int) { return it.ID, it.Revision },
		reload: true,
		create: func(r *http.Request, in *itemIn) (*ent.Item, error) {
			ctx := r.Context()
			partID, err := resolvePart(ctx, in.PartID, in.SKU, "part_id")
			if err != nil {
				return nil, err
			}
			hubID, err := resolveHub(ctx, in.HubID, in.Hub, "hub")
			if err != nil {
				return nil, err
			}
			return d.Service.CreateItem(ctx, ent.CreateItemInput{
				PartID: deref(partID), HubID: deref(hubID), Quantity: in.Quantity, Lot: in.Lot, Serial: in.Serial,
				Status: in.Status, ExpiresAt: in.ExpiresAt,
			})
		},
		update: func(r *http.Request, id resourceid.ID, in *itemIn, nulls map[string]bool, rev *int) (*ent.Item, error) {
			ctx := r.Context()
			u := ent.UpdateItemInput{
				Quantity: in.Quantity, Lot: in.Lot, Serial: in.Serial,
				Status: in.Status, ExpiresAt: in.ExpiresAt, ClearExpiresAt: nulls["expires_at"],
			}
			var err error
			if in.PartID != nil || in.SKU != nil {
				if u.PartID, err = resolvePart(ctx, in.PartID, in.SKU, "part_id"); err != nil {
					return nil, err
				}
			}
			if in.HubID != nil || in.Hub != nil {
				if u.HubID, err = resolveHub(ctx, in.HubID, in.Hub, "hub"); err != nil {
					return nil, err
				}
			}
			return d.Service.UpdateItem(ctx, id, u, rev)
		},
		remove: d.Service.DeleteItem,
	}
}

func newItemOrder(dir ent.OrderDirection, f *ent.ItemOrderField) *ent.ItemOrder {
	return &ent.ItemOrder{Direction: dir, Field: f}
}

// resolveHub returns the hub id given directly or by code (field names the
// code's body member in errors). Neither given: nil, for the service to
// report as missing.
func resolveHub(ctx context.Context, id *resourceid.ID, code *string, field string) (*resourceid.ID, error) {
	if id != nil || code == nil {
		if id == nil {
			return nil, apperr.Validation(apperr.FieldError{Field: field, Message: "is required: give the hub's code (hub) or id (hub_id)"})
		}
		return id, nil
	}
	h, err := ent.FromContext(ctx).Hub.Query().Where(hub.Code(*code)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Validation(apperr.FieldError{Field: field, Message: fmt.Sprintf("no hub has the code %q", truncate(*code))})
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return &h.ID, nil
}

// resolvePart returns the part id given directly or by SKU.
func resolvePart(ctx context.Context, id *resourceid.ID, sku *string, field string) (*resourceid.ID, error) {
	if id != nil || sku == nil {
		if id == nil {
			return nil, apperr.Validation(apperr.FieldError{Field: field, Message: "is required: give the part's id (part_id) or sku"})
		}
		return id, nil
	}
	p, err := ent.FromContext(ctx).Part.Query().Where(part.Sku(*sku)).Only(ctx)
	if ent.IsNotFound(err) {
		if field == "part_id" {
			field = "sku"
		}
		return nil, apperr.Validation(apperr.FieldError{Field: field, Message: fmt.Sprintf("no part has the SKU %q", truncate(*sku))})
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return &p.ID, nil
}
