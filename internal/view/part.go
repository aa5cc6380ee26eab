package view

import (
	"logistics/ent"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
)

type PartJSON struct {
	ID           resourceid.ID   `json:"id"`
	SKU          string          `json:"sku"`
	PartName     string          `json:"part_name"`
	Description  string          `json:"description"`
	Unit         string          `json:"unit"`
	UnitWeightKg decimal.Decimal `json:"unit_weight_kg"`
	Hazardous    bool            `json:"hazardous"`
	Revision     int             `json:"revision"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
}

func RenderPart(p *ent.Part) PartJSON {
	return PartJSON{
		ID: p.ID, SKU: p.Sku, PartName: p.PartName, Description: p.Description, Unit: p.Unit.String(),
		UnitWeightKg: p.UnitWeightKg, Hazardous: p.Hazardous, Revision: p.Revision,
		CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt),
	}
}
