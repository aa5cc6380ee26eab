package rest

import (
	"net/http"
	"strconv"

	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/webhooks"
)

// Webhook endpoints: /v1/webhook-endpoints. The handlers call the same
// internal/webhooks code as the GraphQL resolvers and the console.

// resendIn is the body of POST /v1/webhook-endpoints/{id}/resend: one of
// event_id or delivery_id.
type resendIn struct {
	EventID    *string `json:"event_id"`
	DeliveryID *string `json:"delivery_id"`
}

// webhookListJSON is the list answer: every endpoint or the latest
// deliveries fit one page, so there is no cursor.
type webhookListJSON struct {
	Data       any     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func webhookID(r *http.Request) (resourceid.ID, error) {
	return pathID(r, resourceid.Webhook, "webhook endpoint")
}

// noStore keeps a response carrying a secret out of caches.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }

func handleListWebhooks(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eps, err := d.Webhooks.List(r.Context())
		if err != nil {
			d.fail(w, r, err)
			return
		}
		out := make([]webhooks.EndpointJSON, len(eps))
		for i, ep := range eps {
			out[i] = webhooks.Render(ep)
		}
		WriteJSON(w, http.StatusOK, webhookListJSON{Data: out})
	})
}

func handleCreateWebhook(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in webhooks.EndpointInput
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		ep, secret, err := d.Webhooks.Create(r.Context(), in)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		out := webhooks.Render(ep)
		out.Secret = secret
		noStore(w)
		w.Header().Set("Location", r.URL.Path+"/"+string(ep.ID))
		WriteJSON(w, http.StatusCreated, out)
	})
}

func handleGetWebhook(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ep, err := d.Webhooks.Get(r.Context(), id)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		WriteJSON(w, http.StatusOK, webhooks.Render(ep))
	})
}

func handleUpdateWebhook(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in webhooks.EndpointInput
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		ep, err := d.Webhooks.Update(r.Context(), id, in)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		WriteJSON(w, http.StatusOK, webhooks.Render(ep))
	})
}

func handleDeleteWebhook(d Deps) http.Handler {
	return deleteHandler(d, resourceid.Webhook, "webhook endpoint", func(r *http.Request, id resourceid.ID) error {
		return d.Webhooks.Delete(r.Context(), id)
	})
}

func handleRotateWebhookSecret(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ep, secret, err := d.Webhooks.RotateSecret(r.Context(), id)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		out := webhooks.Render(ep)
		out.Secret = secret
		noStore(w)
		WriteJSON(w, http.StatusOK, out)
	})
}

func handleResendWebhook(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in resendIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		var ref string
		switch {
		case in.EventID != nil && in.DeliveryID != nil:
			err = apperr.Invalid("event_id", "give event_id or delivery_id, not both")
		case in.EventID != nil:
			ref = *in.EventID
		case in.DeliveryID != nil:
			ref = *in.DeliveryID
		default:
			err = apperr.Invalid("event_id", "give event_id or delivery_id")
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		del, err := d.Webhooks.Resend(r.Context(), id, ref)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		WriteJSON(w, http.StatusAccepted, webhooks.RenderDelivery(del))
	})
}

func handleTestWebhook(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		del, err := d.Webhooks.SendTest(r.Context(), id)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		WriteJSON(w, http.StatusAccepted, webhooks.RenderDelivery(del))
	})
}

func handleListWebhookDeliveries(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := webhookID(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		q := r.URL.Query()
		limit := webhooks.MaxDeliveryPage
		if s := q.Get("limit"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > webhooks.MaxDeliveryPage {
				d.fail(w, r, apperr.Invalid("limit", "must be a whole number from 1 to %d", webhooks.MaxDeliveryPage))
				return
			}
			limit = n
		}
		ds, err := d.Webhooks.Deliveries(r.Context(), id, q.Get("status"), limit)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		out := make([]webhooks.DeliveryJSON, len(ds))
		for i, del := range ds {
			out[i] = webhooks.RenderDelivery(del)
		}
		WriteJSON(w, http.StatusOK, webhookListJSON{Data: out})
	})
}
