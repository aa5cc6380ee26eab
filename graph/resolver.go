// Package graph is the GraphQL interface: the schema in schema/*.graphqls,
// resolvers of a few lines each over the service layer, and the HTTP handler
// that serves GraphQL over HTTP.
package graph

import (
	"encoding/json"
	"log/slog"
	"time"

	"logistics/ent"
	"logistics/graph/model"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/documents"
	"logistics/internal/eventstream"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/sandbox"
	"logistics/internal/service"
	"logistics/internal/webhooks"
)

// Resolver is the root of dependency injection for the resolvers. It holds no
// database client: resolvers read the environment's client (or the current
// transaction) from the request context.
type Resolver struct {
	Service   *service.Service
	Auth      *auth.Store         // users and API tokens, in the production database
	Streams   *eventstream.Broker // live subscriptions; nil: subscriptions refused
	Recheck   time.Duration       // how often a subscription checks its caller's credentials again
	OutBuffer int                 // messages waiting for a subscription's client before it is closed as too slow
	Log       *slog.Logger
	// Webhooks manages webhook endpoints (the same code as REST).
	Webhooks *webhooks.Manager
	// Documents keeps the trusted documents (the same code as REST).
	Documents *documents.Store
	// Sandbox is the sandbox's test clock (the same code as REST).
	Sandbox *sandbox.Clock
}

// Page sizes of connections: the default when neither first nor last is
// given, and the most one page may hold.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// pageSize applies the default and the maximum to a connection's first/last.
func pageSize(first, last *int) (*int, *int, error) {
	for _, p := range []struct {
		name string
		v    *int
	}{{"first", first}, {"last", last}} {
		if p.v != nil && (*p.v < 0 || *p.v > MaxPageSize) {
			return nil, nil, apperr.Invalid(p.name, "must be between 0 and %d", MaxPageSize)
		}
	}
	if first == nil && last == nil {
		n := DefaultPageSize
		first = &n
	}
	return first, last, nil
}

// webhookInput converts the GraphQL input to the webhooks package's.
func webhookInput(in model.WebhookEndpointInput) webhooks.EndpointInput {
	out := webhooks.EndpointInput{URL: in.URL, Description: in.Description, Enabled: in.Enabled}
	if in.EventTypes != nil {
		out.EventTypes = &in.EventTypes
	}
	if in.Filters != nil {
		out.Filters = webhookFiltersInput(in.Filters)
	}
	return out
}

// webhookFiltersInput turns the typed filters gqlgen decoded into the JSON
// the webhooks package checks and stores (the REST body's filters member):
// each where input marshals to the very object a GraphQL client sends.
func webhookFiltersInput(in *model.WebhookFiltersInput) *filter.EventFilters {
	out := filter.EventFilters{}
	add := func(key string, where any, isNil bool) {
		if isNil {
			return
		}
		if b, err := json.Marshal(where); err == nil {
			out[key] = b
		}
	}
	add("hub", in.Hub, in.Hub == nil)
	add("part", in.Part, in.Part == nil)
	add("item", in.Item, in.Item == nil)
	add("order", in.Order, in.Order == nil)
	add("order_line", in.OrderLine, in.OrderLine == nil)
	add("tracking_entry", in.TrackingEntry, in.TrackingEntry == nil)
	add("workflow", in.Workflow, in.Workflow == nil)
	return &out
}

// webhookFilters is an endpoint's filters as GraphQL shows them: the stored
// JSON objects, keyed as in REST.
func webhookFilters(ep *ent.WebhookEndpoint) map[string]any {
	out := make(map[string]any, len(ep.Filters))
	for k, raw := range ep.Filters {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}

// resendRef is the event or delivery id a resend names ("" when neither).
func resendRef(eventID, deliveryID *resourceid.ID) string {
	switch {
	case eventID != nil && deliveryID != nil:
		return "both"
	case eventID != nil:
		return string(*eventID)
	case deliveryID != nil:
		return string(*deliveryID)
	}
	return ""
}

// nullIfNotFound answers null for a missing webhook endpoint, as node() does.
func nullIfNotFound[T any](v *T, err error) (*T, error) {
	if e := apperr.From(err); e != nil && e.Kind == apperr.KindNotFound {
		return nil, nil
	}
	return v, err
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
