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
	"logistics/internal/workflowdef"
)

// ---- order transitions and their events ----

type transitionIn struct {
	Transition     string  `json:"transition"`
	TrackingNumber *string `json:"tracking_number"`
	Carrier        *string `json:"carrier"`
}

// handleTransitionOrder answers POST /v1/orders/{id}/transitions with the
// order as it is afterwards. If-Match makes it conditional on the revision.
func handleTransitionOrder(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, resourceid.Order, "order")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in transitionIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		if in.Transition == "" {
			d.fail(w, r, apperr.Validation(apperr.FieldError{Field: "transition", Message: "is required"}))
			return
		}
		rev, err := ifMatch(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ctx := r.Context()
		o, err := d.Service.TransitionOrder(ctx, id, in.Transition, service.TransitionOptions{
			TrackingNumber: deref(in.TrackingNumber), Carrier: deref(in.Carrier), Revision: rev,
		})
		if err == nil {
			o, err = d.loadOrder(ctx, o.ID)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		writeResource(w, http.StatusOK, etag(o.Revision), renderOrder(o))
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
		Actor: e.Actor, OccurredAt: ts(e.OccurredAt), CreatedAt: ts(e.CreatedAt), UpdatedAt: ts(e.UpdatedAt)}
}

// handleListOrderEvents answers GET /v1/orders/{id}/events: the order's
// transitions, oldest first by default, filtered like every list.
func handleListOrderEvents(d Deps) http.Handler {
	return list(d, filter.OrderEventTable, filter.OrderEvents, func(r *http.Request, where *ent.OrderEventWhereInput, p page) (listJSON, error) {
		id, err := existingOrder(r)
		if err != nil {
			return listJSON{}, err
		}
		ctx := r.Context()
		c := ent.FromContext(ctx)
		orders, err := sortOrders(p.sort, func(dir ent.OrderDirection, f *ent.OrderEventOrderField) *ent.OrderEventOrder {
			return &ent.OrderEventOrder{Direction: dir, Field: f}
		})
		if err != nil {
			return listJSON{}, err
		}
		conn, err := c.OrderEvent.Query().Where(orderevent.OrderID(id)).
			Paginate(ctx, p.after, &p.first, nil, nil, ent.WithOrderEventOrder(orders), ent.WithOrderEventFilter(where.Filter))
		if err != nil {
			return listJSON{}, apperr.From(err)
		}
		return pageOf(p, conn.Edges, conn.PageInfo, func(e *ent.OrderEventEdge) any { return renderOrderEvent(e.Node) }), nil
	})
}

// ---- workflows ----

type workflowIn struct {
	Key          string                   `json:"key"`
	Name         *string                  `json:"name"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
}

// handleCreateWorkflow answers POST /v1/workflows: version 1 of a new key, or
// the next version of an existing one (201 either way).
func handleCreateWorkflow(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in workflowIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		wf, err := d.Service.CreateWorkflow(r.Context(), in.Key, deref(in.Name), workflowdef.Definition{
			States: in.States, InitialState: in.InitialState, Transitions: in.Transitions,
		})
		if err != nil {
			d.fail(w, r, err)
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+string(wf.ID))
		writeResource(w, http.StatusCreated, "", renderWorkflow(wf))
	})
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "text/csv" && mt != "application/csv") {
			d.fail(w, r, apperr.UnsupportedMedia("send the file as text/csv"))
			return
		}
		res, err := d.Service.ImportItems(r.Context(), http.MaxBytesReader(w, r.Body, MaxImportBytes))
		if err != nil {
			d.fail(w, r, err)
			return
		}
		WriteJSON(w, http.StatusCreated, res)
	})
}
