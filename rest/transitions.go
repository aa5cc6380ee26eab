package rest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/predicate"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// mountOrderFlows registers the order-workflow routes: transitions, order
// events, workflow versions and the stock import.
func mountOrderFlows(mux *http.ServeMux, prefix string, d Deps) {
	mux.Handle("POST "+prefix+"/v1/orders/{id}/transitions", handleTransitionOrder(d))
	mux.Handle("GET "+prefix+"/v1/orders/{id}/events", handleListOrderEvents(d))
	mux.Handle("POST "+prefix+"/v1/workflows", handleCreateWorkflow(d))
	mux.Handle("POST "+prefix+"/v1/items/import", handleImportItems(d))
}

// maxFlowBody caps the JSON bodies of these routes (SPEC §9: 1 MiB).
const maxFlowBody = 1 << 20

// decodeFlowJSON reads a JSON body of at most 1 MiB into v.
func decodeFlowJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return apperr.UnsupportedMedia("send application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFlowBody))
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &mbe):
			return apperr.TooLarge("the body is larger than %d bytes", mbe.Limit)
		case errors.As(err, &te):
			return apperr.Invalid(te.Field, "must be a JSON %s", te.Type.Kind())
		case errors.Is(err, io.EOF):
			return apperr.BadRequest("the body is empty: send a JSON object")
		default:
			return apperr.BadRequest("the body is not valid JSON: %v", err)
		}
	}
	return nil
}

type transitionRequest struct {
	Transition     string `json:"transition"`
	TrackingNumber string `json:"tracking_number"`
	Carrier        string `json:"carrier"`
	Revision       *int   `json:"revision"`
}

// handleTransitionOrder answers POST /v1/orders/{id}/transitions. The order's
// revision may come as "revision" in the body or as If-Match.
func handleTransitionOrder(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in transitionRequest
		if err := decodeFlowJSON(w, r, &in); err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		if strings.TrimSpace(in.Transition) == "" {
			apperr.Write(w, r, d.Log, apperr.Validation(apperr.FieldError{Field: "transition", Message: "is required"}))
			return
		}
		if in.Revision == nil {
			rev, err := ifMatchRevision(r)
			if err != nil {
				apperr.Write(w, r, d.Log, err)
				return
			}
			in.Revision = rev
		}
		o, err := d.Service.TransitionOrder(r.Context(), resourceid.ID(r.PathValue("id")), in.Transition, service.TransitionOptions{
			TrackingNumber: in.TrackingNumber, Carrier: in.Carrier, Revision: in.Revision,
		})
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		body, err := orderFlowJSON(r, d.Service, o)
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		w.Header().Set("ETag", `"`+strconv.Itoa(o.Revision)+`"`)
		WriteJSON(w, http.StatusOK, body)
	})
}

// ifMatchRevision reads If-Match: "N" (or W/"N") as a revision.
func ifMatchRevision(r *http.Request) (*int, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(v, "W/"), `"`))
	if err != nil || n < 1 {
		return nil, apperr.Invalid("If-Match", "must be an ETag from an earlier response")
	}
	return &n, nil
}

type orderLineFlow struct {
	ID                resourceid.ID   `json:"id"`
	PartID            resourceid.ID   `json:"part_id"`
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
	ShippedQuantity   decimal.Decimal `json:"shipped_quantity"`
}

// orderFlowJSON is the order after a transition: its state, workflow
// version, what may happen next and its lines.
func orderFlowJSON(r *http.Request, svc *service.Service, o *ent.Order) (map[string]any, error) {
	ctx := r.Context()
	allowed, err := svc.AllowedTransitions(ctx, o)
	if err != nil {
		return nil, err
	}
	lines, err := ent.FromContext(ctx).OrderLine.Query().Where(orderline.OrderID(o.ID)).Order(orderline.ByID()).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	ls := make([]orderLineFlow, len(lines))
	for i, l := range lines {
		ls[i] = orderLineFlow{l.ID, l.PartID, l.Quantity, l.AllocatedQuantity, l.ShippedQuantity}
	}
	m := map[string]any{
		"id": o.ID, "number": o.Number, "status": o.Status, "workflow_id": o.WorkflowID,
		"hub_id": o.HubID, "customer_ref": o.CustomerRef, "priority": o.Priority,
		"allowed_transitions": allowed, "lines": ls, "revision": o.Revision,
		"created_at": o.CreatedAt, "updated_at": o.UpdatedAt,
	}
	if wf := o.Edges.Workflow; wf != nil {
		m["workflow"] = map[string]any{"id": wf.ID, "key": wf.Key, "version": wf.Version}
	}
	return m, nil
}

type orderEventJSON struct {
	ID         resourceid.ID `json:"id"`
	OrderID    resourceid.ID `json:"order_id"`
	FromState  string        `json:"from_state"`
	ToState    string        `json:"to_state"`
	Transition string        `json:"transition"`
	Actor      string        `json:"actor"`
	OccurredAt time.Time     `json:"occurred_at"`
	CreatedAt  time.Time     `json:"created_at"`
	UpdatedAt  time.Time     `json:"updated_at"`
}

// handleListOrderEvents answers GET /v1/orders/{id}/events, oldest first.
// Filters: transition, from_state, to_state, actor (equality; key[]=a&key[]=b
// for any of several; key!=v to exclude), occurred_at and created_at with =,
// >, >=, <, <= (RFC 3339). Unknown fields are ignored and echoed in
// X-Ignored-Filters. Pages: limit (default 50, max 500) and cursor.
func handleListOrderEvents(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		id := resourceid.ID(r.PathValue("id"))
		c := ent.FromContext(ctx)
		if _, err := resourceid.Parse(string(id), resourceid.Order); err != nil {
			apperr.Write(w, r, d.Log, apperr.NotFound("order %s not found", id))
			return
		}
		ok, err := c.Order.Query().Where(order.ID(id)).Exist(ctx)
		if err != nil || !ok {
			if err == nil {
				err = apperr.NotFound("order %s not found", id)
			}
			apperr.Write(w, r, d.Log, err)
			return
		}
		preds, limit, after, ignored, err := orderEventFilters(r.URL.RawQuery)
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		q := c.OrderEvent.Query().Where(orderevent.OrderID(id)).Where(preds...)
		if after != "" {
			q.Where(orderevent.IDGT(after))
		}
		evs, err := q.Order(orderevent.ByID()).Limit(limit + 1).All(ctx)
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		more := len(evs) > limit
		if more {
			evs = evs[:limit]
		}
		out := make([]orderEventJSON, len(evs))
		for i, e := range evs {
			out[i] = orderEventJSON{e.ID, e.OrderID, e.FromState, e.ToState, e.Transition, e.Actor, e.OccurredAt, e.CreatedAt, e.UpdatedAt}
		}
		page := map[string]any{"data": out, "has_more": more, "next_cursor": nil}
		if more {
			page["next_cursor"] = base64.RawURLEncoding.EncodeToString([]byte(evs[len(evs)-1].ID))
		}
		if len(ignored) > 0 {
			w.Header().Set("X-Ignored-Filters", strings.Join(ignored, ","))
		}
		WriteJSON(w, http.StatusOK, page)
	})
}

// orderEventFilters parses the query string of the events list.
func orderEventFilters(raw string) (preds []predicate.OrderEvent, limit int, after resourceid.ID, ignored []string, err error) {
	limit = 50
	strField := map[string]struct {
		eq  func(string) predicate.OrderEvent
		in  func(...string) predicate.OrderEvent
		neq func(string) predicate.OrderEvent
	}{
		"transition": {orderevent.Transition, orderevent.TransitionIn, orderevent.TransitionNEQ},
		"from_state": {orderevent.FromState, orderevent.FromStateIn, orderevent.FromStateNEQ},
		"to_state":   {orderevent.ToState, orderevent.ToStateIn, orderevent.ToStateNEQ},
		"actor":      {orderevent.Actor, orderevent.ActorIn, orderevent.ActorNEQ},
	}
	timeField := map[string]map[string]func(time.Time) predicate.OrderEvent{
		"occurred_at": {"": orderevent.OccurredAt, ">": orderevent.OccurredAtGT, ">=": orderevent.OccurredAtGTE, "<": orderevent.OccurredAtLT, "<=": orderevent.OccurredAtLTE},
		"created_at":  {"": orderevent.CreatedAt, ">": orderevent.CreatedAtGT, ">=": orderevent.CreatedAtGTE, "<": orderevent.CreatedAtLT, "<=": orderevent.CreatedAtLTE},
	}
	multi := map[string][]string{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, hasEq := strings.Cut(part, "=")
		if k, err = url.QueryUnescape(k); err != nil {
			return nil, 0, "", nil, apperr.BadRequest("malformed query string")
		}
		if v, err = url.QueryUnescape(v); err != nil {
			return nil, 0, "", nil, apperr.BadRequest("malformed query string")
		}
		op := ""
		if !hasEq {
			// "occurred_at>2026-01-01T00:00:00Z" arrives as a key without "=".
			i := strings.IndexAny(k, "<>")
			if i < 0 {
				ignored = append(ignored, k)
				continue
			}
			k, op, v = k[:i], k[i:i+1], k[i+1:]
		} else {
			switch {
			case strings.HasSuffix(k, "[]"):
				k, op = strings.TrimSuffix(k, "[]"), "[]"
			case strings.HasSuffix(k, "!"):
				k, op = strings.TrimSuffix(k, "!"), "!"
			case strings.HasSuffix(k, ">"), strings.HasSuffix(k, "<"):
				k, op = k[:len(k)-1], k[len(k)-1:]+"="
			}
		}
		switch {
		case k == "limit":
			n, convErr := strconv.Atoi(v)
			if convErr != nil || n < 1 || n > 500 {
				return nil, 0, "", nil, apperr.Invalid("limit", "must be a whole number from 1 to 500")
			}
			limit = n
		case k == "cursor":
			b, decErr := base64.RawURLEncoding.DecodeString(v)
			if decErr != nil || !resourceid.ID(b).Valid() {
				return nil, 0, "", nil, apperr.Invalid("cursor", "is not a cursor from an earlier page")
			}
			after = resourceid.ID(b)
		case strField[k].eq != nil:
			f := strField[k]
			switch op {
			case "":
				preds = append(preds, f.eq(v))
			case "[]":
				multi[k] = append(multi[k], v)
			case "!":
				preds = append(preds, f.neq(v))
			default:
				return nil, 0, "", nil, apperr.Invalid(k, "supports =, != and [] only")
			}
		case timeField[k] != nil:
			t, perr := time.Parse(time.RFC3339Nano, v)
			if perr != nil {
				return nil, 0, "", nil, apperr.Invalid(k, "%q is not an RFC 3339 time", v)
			}
			mk, ok := timeField[k][op]
			if !ok {
				return nil, 0, "", nil, apperr.Invalid(k, "supports =, >, >=, < and <= only")
			}
			preds = append(preds, mk(t))
		default:
			ignored = append(ignored, k)
		}
	}
	for k, vs := range multi {
		preds = append(preds, strField[k].in(vs...))
	}
	return preds, limit, after, ignored, nil
}
