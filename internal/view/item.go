package view

import (
	"logistics/ent"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
)

type PartRefJSON struct {
	ID       resourceid.ID `json:"id"`
	SKU      string        `json:"sku"`
	PartName string        `json:"part_name,omitempty"`
}

// SkuRefJSON is the part of an item: its id and SKU.
type SkuRefJSON struct {
	ID  resourceid.ID `json:"id"`
	SKU string        `json:"sku"`
}

type HubRefJSON struct {
	ID   resourceid.ID `json:"id"`
	Code string        `json:"code"`
}

type ItemJSON struct {
	ID                resourceid.ID   `json:"id"`
	Part              SkuRefJSON      `json:"part"`
	Hub               HubRefJSON      `json:"hub"`
	Quantity          decimal.Decimal `json:"quantity"`
	ReservedQuantity  decimal.Decimal `json:"reserved_quantity"`
	AvailableQuantity decimal.Decimal `json:"available_quantity"`
	Lot               string          `json:"lot"`
	Serial            string          `json:"serial"`
	Status            string          `json:"status"`
	ExpiresAt         *string         `json:"expires_at"`
	Revision          int             `json:"revision"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
}

func RenderItem(it *ent.Item) ItemJSON {
	out := ItemJSON{
		ID: it.ID, Part: SkuRefJSON{ID: it.PartID}, Hub: HubRefJSON{ID: it.HubID},
		Quantity: it.Quantity, ReservedQuantity: it.ReservedQuantity, AvailableQuantity: it.Quantity - it.ReservedQuantity,
		Lot: it.Lot, Serial: it.Serial, Status: it.Status.String(), ExpiresAt: tsp(it.ExpiresAt),
		Revision: it.Revision, CreatedAt: ts(it.CreatedAt), UpdatedAt: ts(it.UpdatedAt),
	}
	if p := it.Edges.Part; p != nil {
		out.Part.SKU = p.Sku
	}
	if h := it.Edges.Hub; h != nil {
		out.Hub.Code = h.Code
	}
	return out
}
