package rest

import (
	"net/http"
	"strconv"

	"logistics/internal/apperr"
	"logistics/internal/export"
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

// renderAll renders every row of a short list.
func renderAll[T, J any](rows []T, render func(T) J) []J {
	out := make([]J, len(rows))
	for i, v := range rows {
		out[i] = render(v)
	}
	return out
}

// jsonOnly refuses an export format: the webhook lists are short lists of
// configuration, answered in JSON only (406 rather than JSON in its place).
func jsonOnly(r *http.Request) error {
	f, err := negotiate(r)
	if err == nil && f != export.JSON {
		err = apperr.NotAcceptable("this list answers in application/json only")
	}
	return err
}

func handleListWebhooks(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := jsonOnly(r); err != nil {
			return err
		}
		eps, err := d.Webhooks.List(r.Context())
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, webhookListJSON{Data: renderAll(eps, webhooks.Render)})
		return nil
	})
}

func handleCreateWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		var in webhooks.EndpointInput
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		ep, secret, err := d.Webhooks.Create(r.Context(), in)
		if err != nil {
			return err
		}
		out := webhooks.Render(ep)
		out.Secret = secret
		noStore(w)
		w.Header().Set("Location", r.URL.Path+"/"+string(ep.ID))
		WriteJSON(w, http.StatusCreated, out)
		return nil
	})
}

func handleGetWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		ep, err := d.Webhooks.Get(r.Context(), id)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, webhooks.Render(ep))
		return nil
	})
}

func handleUpdateWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		var in webhooks.EndpointInput
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		ep, err := d.Webhooks.Update(r.Context(), id, in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, webhooks.Render(ep))
		return nil
	})
}

func handleDeleteWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		if err := d.Webhooks.Delete(r.Context(), id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}

func handleRotateWebhookSecret(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		ep, secret, err := d.Webhooks.RotateSecret(r.Context(), id)
		if err != nil {
			return err
		}
		out := webhooks.Render(ep)
		out.Secret = secret
		noStore(w)
		WriteJSON(w, http.StatusOK, out)
		return nil
	})
}

func handleResendWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		var in resendIn
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		var ref string
		switch {
		case in.EventID != nil && in.DeliveryID != nil:
			return apperr.Invalid("event_id", "give event_id or delivery_id, not both")
		case in.EventID != nil:
			ref = *in.EventID
		case in.DeliveryID != nil:
			ref = *in.DeliveryID
		default:
			return apperr.Invalid("event_id", "give event_id or delivery_id")
		}
		del, err := d.Webhooks.Resend(r.Context(), id, ref)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, webhooks.RenderDelivery(del))
		return nil
	})
}

// testIn is the optional body of POST /v1/webhook-endpoints/{id}/test.
type testIn struct {
	// Type is the event type to send an example of (any type of the
	// catalog; default webhook.test).
	Type *string `json:"type"`
}

func handleTestWebhook(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		var in testIn
		if r.ContentLength != 0 { // no body: webhook.test, as before
			if _, err := d.decode(r, &in); err != nil {
				return err
			}
		}
		del, err := d.Webhooks.SendTest(r.Context(), id, deref(in.Type))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, webhooks.RenderDelivery(del))
		return nil
	})
}

func handleListWebhookDeliveries(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		if err := jsonOnly(r); err != nil {
			return err
		}
		q := r.URL.Query()
		limit := webhooks.MaxDeliveryPage
		if s := q.Get("limit"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > webhooks.MaxDeliveryPage {
				return apperr.Invalid("limit", "must be a whole number from 1 to %d", webhooks.MaxDeliveryPage)
			}
			limit = n
		}
		ds, err := d.Webhooks.Deliveries(r.Context(), id, q.Get("status"), limit)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, webhookListJSON{Data: renderAll(ds, webhooks.RenderDelivery)})
		return nil
	})
}

func handleWebhookDeliveryStats(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := webhookID(r)
		if err != nil {
			return err
		}
		if err := jsonOnly(r); err != nil {
			return err
		}
		st, err := d.Webhooks.Stats(r.Context(), id)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, st)
		return nil
	})
}
