package rest

import (
	"context"
	"net/http"

	"logistics/ent"
	"logistics/ent/part"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

type partJSON struct {
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

func renderPart(p *ent.Part) partJSON {
	return partJSON{
		ID: p.ID, SKU: p.Sku, PartName: p.PartName, Description: p.Description, Unit: p.Unit.String(),
		UnitWeightKg: p.UnitWeightKg, Hazardous: p.Hazardous, Revision: p.Revision,
		CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt),
	}
}

// partIn is the body of POST and PATCH /v1/parts.
type partIn struct {
	SKU          *string          `json:"sku"`
	PartName     *string          `json:"part_name"`
	Description  *string          `json:"description"`
	Unit         *part.Unit       `json:"unit"`
	UnitWeightKg *decimal.Decimal `json:"unit_weight_kg"`
	Hazardous    *bool            `json:"hazardous"`
}

func handleListParts(d Deps) http.Handler {
	return list(d, filter.PartTable, filter.Parts, func(r *http.Request, where *ent.PartWhereInput, p page) (listJSON, error) {
		orders, err := sortOrders(p.sort, func(dir ent.OrderDirection, f *ent.PartOrderField) *ent.PartOrder {
			return &ent.PartOrder{Direction: dir, Field: f}
		})
		if err != nil {
			return listJSON{}, err
		}
		ctx := r.Context()
		conn, err := ent.FromContext(ctx).Part.Query().Paginate(ctx, p.after, &p.first, nil, nil, ent.WithPartOrder(orders), ent.WithPartFilter(where.Filter))
		if err != nil {
			return listJSON{}, apperr.From(err)
		}
		return pageOf(p, conn.Edges, conn.PageInfo, func(e *ent.PartEdge) any { return renderPart(e.Node) }), nil
	})
}

func handleGetPart(d Deps) http.Handler {
	return getHandler(d, resourceid.Part, "part",
		func(ctx context.Context, id resourceid.ID) (*ent.Part, error) {
			return ent.FromContext(ctx).Part.Get(ctx, id)
		},
		func(v *ent.Part) int { return v.Revision },
		func(v *ent.Part) any { return renderPart(v) })
}

func handleCreatePart(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in partIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		p, err := d.Service.CreatePart(r.Context(), ent.CreatePartInput{
			Sku: deref(in.SKU), PartName: deref(in.PartName), Description: in.Description,
			Unit: in.Unit, UnitWeightKg: in.UnitWeightKg, Hazardous: in.Hazardous,
		})
		if err != nil {
			d.fail(w, r, err)
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+string(p.ID))
		writeResource(w, http.StatusCreated, etag(p.Revision), renderPart(p))
	})
}

func handleUpdatePart(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, resourceid.Part, "part")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		rev, err := ifMatch(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in partIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		p, err := d.Service.UpdatePart(r.Context(), id, ent.UpdatePartInput{
			Sku: in.SKU, PartName: in.PartName, Description: in.Description,
			Unit: in.Unit, UnitWeightKg: in.UnitWeightKg, Hazardous: in.Hazardous,
		}, rev)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		writeResource(w, http.StatusOK, etag(p.Revision), renderPart(p))
	})
}

func handleDeletePart(d Deps) http.Handler {
	return deleteHandler(d, resourceid.Part, "part", func(r *http.Request, id resourceid.ID) error {
		return d.Service.DeletePart(r.Context(), id)
	})
}
