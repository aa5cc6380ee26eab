package rest

import (
	"context"
	"net/http"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// addressIn is the address of a hub in a request body.
type addressIn struct {
	Line1      *string `json:"line1"`
	City       *string `json:"city"`
	PostalCode *string `json:"postal_code"`
	Country    *string `json:"country"`
}

// hubFieldNames are the body's names of the hub's fields where they differ
// from the model's.
var hubFieldNames = map[string]string{
	"address_line1": "address.line1", "city": "address.city", "postal_code": "address.postal_code", "country": "address.country",
}

// hubIn is the body of POST and PATCH /v1/hubs.
type hubIn struct {
	Code      *string    `json:"code"`
	Name      *string    `json:"name"`
	Kind      *hub.Kind  `json:"kind"`
	Address   *addressIn `json:"address"`
	Latitude  *float64   `json:"latitude"`
	Longitude *float64   `json:"longitude"`
	Timezone  *string    `json:"timezone"`
	Active    *bool      `json:"active"`
}

// hubs is the adapter of /v1/hubs.
func (d Deps) hubs() *resource[*ent.Hub, ent.HubWhereInput, view.HubJSON, hubIn] {
	return &resource[*ent.Hub, ent.HubWhereInput, view.HubJSON, hubIn]{
		what: "hub", prefix: resourceid.Hub, table: filter.HubTable, parse: filter.Hubs,
		page: func(r *http.Request, where *ent.HubWhereInput, p page) ([]*ent.Hub, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).Hub.Query().
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithHubOrder(orderBy(p.sort, newHubOrder)), ent.WithHubFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.HubEdge) *ent.Hub { return e.Node })
		},
		load: func(ctx context.Context, id resourceid.ID) (*ent.Hub, error) {
			return ent.FromContext(ctx).Hub.Get(ctx, id)
		},
		render: plain(view.RenderHub),
		key:    func(h *ent.Hub) (resourceid.ID, int) { return h.ID, h.Revision },
		create: func(r *http.Request, in *hubIn) (*ent.Hub, error) {
			c := ent.CreateHubInput{
				Code: deref(in.Code), Name: deref(in.Name), Kind: in.Kind,
				Latitude: in.Latitude, Longitude: in.Longitude, Timezone: in.Timezone, Active: in.Active,
			}
			if a := in.Address; a != nil {
				c.AddressLine1, c.City, c.PostalCode, c.Country = a.Line1, a.City, a.PostalCode, deref(a.Country)
			}
			return d.Service.CreateHub(r.Context(), c)
		},
		update: func(r *http.Request, id resourceid.ID, in *hubIn, nulls map[string]bool, rev *int) (*ent.Hub, error) {
			u := ent.UpdateHubInput{
				Code: in.Code, Name: in.Name, Kind: in.Kind, Latitude: in.Latitude, Longitude: in.Longitude,
				Timezone: in.Timezone, Active: in.Active,
				ClearLatitude: nulls["latitude"], ClearLongitude: nulls["longitude"],
			}
			if a := in.Address; a != nil {
				u.AddressLine1, u.City, u.PostalCode, u.Country = a.Line1, a.City, a.PostalCode, a.Country
			}
			return d.Service.UpdateHub(r.Context(), id, u, rev)
		},
		remove: d.Service.DeleteHub,
		names:  hubFieldNames,
	}
}

func newHubOrder(dir ent.OrderDirection, f *ent.HubOrderField) *ent.HubOrder {
	return &ent.HubOrder{Direction: dir, Field: f}
}

// decode reads and strictly decodes a JSON request body.
func (d Deps) decode(r *http.Request, v any) (map[string]bool, error) {
	b, err := d.readBody(r)
	if err != nil {
		return nil, err
	}
	return decodeJSON(b, v)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
