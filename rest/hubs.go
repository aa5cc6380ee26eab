package rest

import (
	"context"
	"net/http"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/internal/apperr"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

type addressJSON struct {
	Line1      string `json:"line1"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type hubJSON struct {
	ID        resourceid.ID `json:"id"`
	Code      string        `json:"code"`
	Name      string        `json:"name"`
	Kind      string        `json:"kind"`
	Address   addressJSON   `json:"address"`
	Latitude  *float64      `json:"latitude"`
	Longitude *float64      `json:"longitude"`
	Timezone  string        `json:"timezone"`
	Active    bool          `json:"active"`
	Revision  int           `json:"revision"`
	CreatedAt string        `json:"created_at"`
	UpdatedAt string        `json:"updated_at"`
}

func renderHub(h *ent.Hub) hubJSON {
	return hubJSON{
		ID: h.ID, Code: h.Code, Name: h.Name, Kind: h.Kind.String(),
		Address:  addressJSON{Line1: h.AddressLine1, City: h.City, PostalCode: h.PostalCode, Country: h.Country},
		Latitude: h.Latitude, Longitude: h.Longitude, Timezone: h.Timezone, Active: h.Active,
		Revision: h.Revision, CreatedAt: ts(h.CreatedAt), UpdatedAt: ts(h.UpdatedAt),
	}
}

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

func handleListHubs(d Deps) http.Handler {
	return list(d, filter.HubTable, filter.Hubs, func(r *http.Request, where *ent.HubWhereInput, p page) (listJSON, error) {
		orders, err := sortOrders(p.sort, func(dir ent.OrderDirection, f *ent.HubOrderField) *ent.HubOrder {
			return &ent.HubOrder{Direction: dir, Field: f}
		})
		if err != nil {
			return listJSON{}, err
		}
		ctx := r.Context()
		conn, err := ent.FromContext(ctx).Hub.Query().Paginate(ctx, p.after, &p.first, nil, nil, ent.WithHubOrder(orders), ent.WithHubFilter(where.Filter))
		if err != nil {
			return listJSON{}, apperr.From(err)
		}
		return pageOf(p, conn.Edges, conn.PageInfo, func(e *ent.HubEdge) any { return renderHub(e.Node) }), nil
	})
}

func handleGetHub(d Deps) http.Handler {
	return getHandler(d, resourceid.Hub, "hub",
		func(ctx context.Context, id resourceid.ID) (*ent.Hub, error) {
			return ent.FromContext(ctx).Hub.Get(ctx, id)
		},
		func(v *ent.Hub) int { return v.Revision },
		func(v *ent.Hub) any { return renderHub(v) })
}

func handleCreateHub(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in hubIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		c := ent.CreateHubInput{
			Code: deref(in.Code), Name: deref(in.Name), Kind: in.Kind,
			Latitude: in.Latitude, Longitude: in.Longitude, Timezone: in.Timezone, Active: in.Active,
		}
		if a := in.Address; a != nil {
			c.AddressLine1, c.City, c.PostalCode, c.Country = a.Line1, a.City, a.PostalCode, deref(a.Country)
		}
		h, err := d.Service.CreateHub(r.Context(), c)
		if err != nil {
			d.fail(w, r, renamed(err, hubFieldNames))
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+string(h.ID))
		writeResource(w, http.StatusCreated, etag(h.Revision), renderHub(h))
	})
}

func handleUpdateHub(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, resourceid.Hub, "hub")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		rev, err := ifMatch(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in hubIn
		nulls, err := d.decode(r, &in)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		u := ent.UpdateHubInput{
			Code: in.Code, Name: in.Name, Kind: in.Kind, Latitude: in.Latitude, Longitude: in.Longitude,
			Timezone: in.Timezone, Active: in.Active,
			ClearLatitude: nulls["latitude"], ClearLongitude: nulls["longitude"],
		}
		if a := in.Address; a != nil {
			u.AddressLine1, u.City, u.PostalCode, u.Country = a.Line1, a.City, a.PostalCode, a.Country
		}
		h, err := d.Service.UpdateHub(r.Context(), id, u, rev)
		if err != nil {
			d.fail(w, r, renamed(err, hubFieldNames))
			return
		}
		writeResource(w, http.StatusOK, etag(h.Revision), renderHub(h))
	})
}

func handleDeleteHub(d Deps) http.Handler {
	return deleteHandler(d, resourceid.Hub, "hub", func(r *http.Request, id resourceid.ID) error {
		return d.Service.DeleteHub(r.Context(), id)
	})
}

// deleteHandler answers DELETE /v1/<resource>/{id} with 204.
// getHandler serves GET /v1/<resources>/{id}: 404 for an id that is
// malformed, of another type or unknown; 304 when If-None-Match holds the
// current ETag; otherwise the resource with its ETag (the revision).
func getHandler[T any](d Deps, prefix, what string, load func(context.Context, resourceid.ID) (T, error), revision func(T) int, render func(T) any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, prefix, what)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		v, err := load(r.Context(), id)
		if ent.IsNotFound(err) {
			err = apperr.NotFound("%s %s not found", what, id)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		tag := etag(revision(v))
		if notModified(w, r, tag) {
			return
		}
		writeResource(w, http.StatusOK, tag, render(v))
	})
}

func deleteHandler(d Deps, prefix, what string, del func(*http.Request, resourceid.ID) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, prefix, what)
		if err == nil {
			err = del(r, id)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
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
