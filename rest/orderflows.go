package rest

import (
	"mime"
	"net/http"

	"logistics/ent"
	"logistics/ent/orderevent"
	"logistics/internal/apperr"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/service"
	"logistics/internal/view"
	"logistics/internal/workflowdef"
)

// ---- order transitions and their events ----

type transitionIn struct {
	Transition     string  `json:"transition"`
	TrackingNumber *string `json:"tracking_number"`
	Carrier        *string `json:"carrier"`
	// Revision is If-Match in the body (GraphQL's revision argument), for
	// clients where a header is awkward: the same 412 when stale.
	Revision *int `json:"revision"`
}

// handleTransitionOrder answers POST /v1/orders/{id}/transitions with the
// order as it is afterwards. If-Match or the body's revision makes it
// conditional on the revision.
func handleTransitionOrder(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, resourceid.Order, "order")
		if err != nil {
			return err
		}
		var in transitionIn
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		if in.Transition == "" {
			return apperr.Validation(apperr.FieldError{Field: "transition", Message: "is required"})
		}
		rev, err := ifMatch(r)
		if err != nil {
			return err
		}
		if in.Revision != nil {
			if rev != nil && *rev != *in.Revision {
				// One of the two is not the current revision, whichever it is.
				return apperr.Precondition("If-Match %d and revision %d disagree", *rev, *in.Revision)
			}
			rev = in.Revision
		}
		ctx, memo := view.WithRenderings(r.Context())
		o, err := d.Service.TransitionOrder(ctx, id, in.Transition, service.TransitionOptions{
			TrackingNumber: deref(in.TrackingNumber), Carrier: deref(in.Carrier), Revision: rev,
		})
		if err == nil {
			o, err = reloaded(ctx, memo, o.ID, view.LoadOrder)
		}
		if err != nil {
			return err
		}
		writeResource(w, http.StatusOK, etag(o.Revision), view.RenderOrder(o))
		return nil
	})
}

type orderEventJSON struct {
	ID         resourceid.ID `json:"id"`
	OrderID    resourceid.ID `json:"order_id"`
	Transition string        `json:"transition"`
	FromState  string        `json:"from_state"`
	ToState    string        `json:"to_state"`
	Actor      string        `json:"actor"`
	OccurredAt string        `json:"occurred_at"`
	CreatedAt  string        `json:"created_at"`
	UpdatedAt  string        `json:"updated_at"`
}

func renderOrderEvent(e *ent.OrderEvent) orderEventJSON {
	return orderEventJSON{ID: e.ID, OrderID: e.OrderID, Transition: e.Transition, FromState: e.FromState, ToState: e.ToState,
		Actor: e.Actor, OccurredAt: view.Timestamp(e.OccurredAt), CreatedAt: view.Timestamp(e.CreatedAt), UpdatedAt: view.Timestamp(e.UpdatedAt)}
}

// orderEvents is the adapter of GET /v1/orders/{id}/events: the order's
// transitions, oldest first by default, filtered like every list.
func (d Deps) orderEvents() *resource[*ent.OrderEvent, ent.OrderEventWhereInput, orderEventJSON, struct{}] {
	return &resource[*ent.OrderEvent, ent.OrderEventWhereInput, orderEventJSON, struct{}]{
		what: "order event", prefix: resourceid.OrderEvent, table: filter.OrderEventTable, parse: filter.OrderEvents,
		parent: func(r *http.Request) error { _, err := existingOrder(r); return err },
		page: func(r *http.Request, where *ent.OrderEventWhereInput, p page) ([]*ent.OrderEvent, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).OrderEvent.Query().Where(orderevent.OrderID(resourceid.ID(r.PathValue("id")))).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithOrderEventOrder(orderBy(p.sort, newOrderEventOrder)), ent.WithOrderEventFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.OrderEventEdge) *ent.OrderEvent { return e.Node })
		},
		render: plain(renderOrderEvent),
	}
}

func newOrderEventOrder(dir ent.OrderDirection, f *ent.OrderEventOrderField) *ent.OrderEventOrder {
	return &ent.OrderEventOrder{Direction: dir, Field: f}
}

// ---- workflows ----

type workflowIn struct {
	Key          string                   `json:"key"`
	Name         *string                  `json:"name"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
}

// ---- stock import ----

// MaxImportBytes caps a stock import file. The body is streamed, so the cap
// bounds the time and the transaction, not memory.
const MaxImportBytes = 200 << 20

// handleImportItems answers POST /v1/items/import: a text/csv file of stock
// (columns in package stockimport and docs/workflows.md), imported all or
// nothing. 201 {"imported": n, "rows": n}; 422 invalid_import with
// row_errors [{row, column, message}] for every bad row (the first 1,000).
func handleImportItems(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "text/csv" && mt != "application/csv") {
			return apperr.UnsupportedMedia("send the file as text/csv")
		}
		res, err := d.Service.ImportItems(r.Context(), http.MaxBytesReader(w, r.Body, MaxImportBytes))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, res)
		return nil
	})
}
