package rest

import (
	"context"
	"net/http"

	"logistics/ent"
	"logistics/ent/part"
	"logistics/internal/decimal"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// partIn is the body of POST and PATCH /v1/parts.
type partIn struct {
	SKU          *string          `json:"sku"`
	PartName     *string          `json:"part_name"`
	Description  *string          `json:"description"`
	Unit         *part.Unit       `json:"unit"`
	UnitWeightKg *decimal.Decimal `json:"unit_weight_kg"`
	Hazardous    *bool            `json:"hazardous"`
}

// parts is the adapter of /v1/parts.
func (d Deps) parts() *resource[*ent.Part, ent.PartWhereInput, view.PartJSON, partIn] {
	return &resource[*ent.Part, ent.PartWhereInput, view.PartJSON, partIn]{
		what: "part", prefix: resourceid.Part, table: filter.PartTable, parse: filter.Parts,
		page: func(r *http.Request, where *ent.PartWhereInput, p page) ([]*ent.Part, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).Part.Query().
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithPartOrder(orderBy(p.sort, newPartOrder)), ent.WithPartFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.PartEdge) *ent.Part { return e.Node })
		},
		load: func(ctx context.Context, id resourceid.ID) (*ent.Part, error) {
			return ent.FromContext(ctx).Part.Get(ctx, id)
		},
		render: plain(view.RenderPart),
		key:    func(p *ent.Part) (resourceid.ID, int) { return p.ID, p.Revision },
		create: func(r *http.Request, in *partIn) (*ent.Part, error) {
			return d.Service.CreatePart(r.Context(), ent.CreatePartInput{
				Sku: deref(in.SKU), PartName: deref(in.PartName), Description: in.Description,
				Unit: in.Unit, UnitWeightKg: in.UnitWeightKg, Hazardous: in.Hazardous,
			})
		},
		update: func(r *http.Request, id resourceid.ID, in *partIn, _ map[string]bool, rev *int) (*ent.Part, error) {
			return d.Service.UpdatePart(r.Context(), id, ent.UpdatePartInput{
				Sku: in.SKU, PartName: in.PartName, Description: in.Description,
				Unit: in.Unit, UnitWeightKg: in.UnitWeightKg, Hazardous: in.Hazardous,
			}, rev)
		},
		remove: d.Service.DeletePart,
	}
}

func newPartOrder(dir ent.OrderDirection, f *ent.PartOrderField) *ent.PartOrder {
	return &ent.PartOrder{Direction: dir, Field: f}
}
