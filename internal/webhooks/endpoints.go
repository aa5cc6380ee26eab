package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"time"

	"logistics/ent"
	"logistics/ent/webhookdelivery"
	"logistics/ent/webhookendpoint"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/standardwebhooks"
)

// Limits of the management API.
const (
	MaxEndpoints     = 50  // per environment
	MaxEventTypes    = 100 // per endpoint
	MaxDeliveryPage  = 100
	TestEventType    = "webhook.test"
	maxDescription   = 500
	maxEventTypeSize = 64
)

// eventTypePattern is a dotted event type, a family ("order.*") or "*".
var eventTypePattern = regexp.MustCompile(`^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$`)

// EndpointJSON is an endpoint as the API shows it: never its secret.
type EndpointJSON struct {
	ID          resourceid.ID `json:"id"`
	URL         string        `json:"url"`
	Description string        `json:"description"`
	EventTypes  []string      `json:"event_types"`
	// Filters is a where filter per resource type (filter.EventFilters);
	// left out when there is none (an optional member: receivers of
	// webhook_endpoint.* events written against the schema before it
	// existed read it as unknown).
	Filters        filter.EventFilters `json:"filters,omitempty"`
	Enabled        bool                `json:"enabled"`
	DisabledReason string              `json:"disabled_reason"`
	SecretRotating bool                `json:"secret_rotating"` // the previous secret still signs
	CreatedAt      string              `json:"created_at"`
	UpdatedAt      string              `json:"updated_at"`
	// Secret is set only in the response that creates it (create, rotate).
	Secret string `json:"secret,omitempty"`
}

// Render is the API representation of an endpoint.
func Render(ep *ent.WebhookEndpoint) EndpointJSON {
	types := ep.EventTypes
	if types == nil {
		types = []string{}
	}
	return EndpointJSON{
		ID: ep.ID, URL: ep.URL, Description: ep.Description, EventTypes: types, Filters: filter.EventFilters(ep.Filters),
		Enabled: !ep.Disabled, DisabledReason: ep.DisabledReason,
		SecretRotating: Rotating(ep),
		CreatedAt:      ts(ep.CreatedAt), UpdatedAt: ts(ep.UpdatedAt),
	}
}

// DeliveryJSON is a delivery as the API shows it.
type DeliveryJSON struct {
	ID             resourceid.ID `json:"id"`
	EndpointID     resourceid.ID `json:"endpoint_id"`
	EventID        string        `json:"event_id"`
	EventType      string        `json:"event_type"`
	Status         string        `json:"status"`
	Attempts       int           `json:"attempts"`
	NextAttemptAt  *string       `json:"next_attempt_at"`
	LastAttemptAt  *string       `json:"last_attempt_at"`
	LastStatusCode int           `json:"last_status_code"`
	LastLatencyMs  int           `json:"last_latency_ms"`
	LastResponse   string        `json:"last_response"`
	LastError      string        `json:"last_error"`
	DeliveredAt    *string       `json:"delivered_at"`
	CreatedAt      string        `json:"created_at"`
}

// RenderDelivery is the API representation of a delivery.
func RenderDelivery(d *ent.WebhookDelivery) DeliveryJSON {
	out := DeliveryJSON{
		ID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType, Status: d.Status.String(),
		Attempts: d.Attempts, LastAttemptAt: tsp(d.LastAttemptAt), LastStatusCode: d.LastStatusCode,
		LastLatencyMs: d.LastLatencyMs, LastResponse: d.LastResponse, LastError: d.LastError,
		DeliveredAt: tsp(d.DeliveredAt), CreatedAt: ts(d.CreatedAt),
	}
	if d.Status == webhookdelivery.StatusPending {
		out.NextAttemptAt = tsp(&d.NextAttemptAt)
	}
	return out
}

// Rotating reports whether a rotated-out secret still signs next to the
// current one.
func Rotating(ep *ent.WebhookEndpoint) bool {
	return ep.PreviousSecret != "" && ep.PreviousSecretExpiresAt != nil && time.Now().Before(*ep.PreviousSecretExpiresAt)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func tsp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

// EndpointInput creates or changes an endpoint; nil leaves a field as it is.
type EndpointInput struct {
	URL         *string   `json:"url"`
	Description *string   `json:"description"`
	EventTypes  *[]string `json:"event_types"`
	Enabled     *bool     `json:"enabled"`
	// Filters replaces the endpoint's filters ({} removes them).
	Filters *filter.EventFilters `json:"filters"`
}

// validate checks the input's fields; the URL's destination is checked by
// checkDestination.
func (in EndpointInput) validate(creating bool) error {
	var errs []apperr.FieldError
	if in.URL == nil && creating {
		errs = append(errs, apperr.FieldError{Field: "url", Message: "is required"})
	}
	if in.URL != nil {
		if _, err := checkURL(*in.URL); err != nil {
			errs = append(errs, apperr.FieldError{Field: "url", Message: err.Error()})
		}
	}
	if in.Description != nil && len(*in.Description) > maxDescription {
		errs = append(errs, apperr.FieldError{Field: "description", Message: "is longer than 500 bytes"})
	}
	if in.EventTypes != nil {
		if len(*in.EventTypes) > MaxEventTypes {
			errs = append(errs, apperr.FieldError{Field: "event_types", Message: "lists more than 100 types"})
		}
		for _, t := range *in.EventTypes {
			if len(t) > maxEventTypeSize || !eventTypePattern.MatchString(t) {
				errs = append(errs, apperr.FieldError{Field: "event_types", Message: "has " + quote(t) + ": an event type is dotted lower-case words (order.created), a family (order.*) or *"})
				break
			}
		}
	}
	if len(errs) > 0 {
		return apperr.Validation(errs...)
	}
	return nil
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// checkFilters checks the filters an endpoint will have (those given, else
// those it has) against the event types it will receive: each filter must
// be of a resource type some of those events carry (a filter that could
// never apply is refused rather than kept silently), and obeys the scope
// rule of relations (auth.RequireFilter): a filter through a relation needs
// the related type's read scope, checked, as the event types are, whenever
// the endpoint is registered or changed. It returns what to store.
func checkFilters(ctx context.Context, given *filter.EventFilters, cur map[string]json.RawMessage, types []string) (map[string]json.RawMessage, error) {
	filters := filter.EventFilters(cur)
	if given != nil {
		filters = *given
	}
	if len(filters) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	set, err := filter.ParseEventFilters(filters, "filters")
	if err != nil {
		return nil, err
	}
	for _, key := range set.Keys() {
		object, _ := filter.EventFilterObject(key)
		if !receivesObject(types, object) {
			return nil, apperr.Validation(apperr.FieldError{Field: "filters." + key,
				Message: "the endpoint receives no " + key + " events: add " + key + ".* (or one of its types) to event_types, or leave this filter out"})
		}
		if err := auth.RequireFilterAt(ctx, set.Where(key), "filters."+key); err != nil {
			return nil, err
		}
	}
	return set.Stored(), nil
}

// receivesObject reports whether an endpoint with the type filter types
// receives some event whose object is of the named type.
func receivesObject(types []string, object string) bool {
	for _, t := range eventlog.Catalog {
		if t.Object == object && wants(types, t.Name) {
			return true
		}
	}
	return false
}

// checkDestination refuses a URL whose host is or resolves to a refused
// address, as a 422 on the url field.
func (m *Manager) checkDestination(ctx context.Context, raw string) error {
	u, err := checkURL(raw)
	if err == nil {
		err = m.resolveAndCheck(ctx, u)
	}
	if err != nil {
		return apperr.Validation(apperr.FieldError{Field: "url", Message: err.Error()})
	}
	return nil
}

func client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return ent.FromContext(ctx)
}

// write runs fn, which changes endpoints, with a client of the transaction
// of ctx or, outside one, of a transaction of its own: an endpoint change
// commits with the endpoints' stamp (eventlog.StampEndpoints). The endpoint
// fn returns, if any, is usable after the commit.
func write(ctx context.Context, fn func(*ent.Client) (*ent.WebhookEndpoint, error)) (*ent.WebhookEndpoint, error) {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return fn(tx.Client())
	}
	var ep *ent.WebhookEndpoint
	err := withTx(ctx, ent.FromContext(ctx), func(_ context.Context, tx *ent.Tx) error {
		var err error
		ep, err = fn(tx.Client())
		return err
	})
	if err != nil {
		return nil, apperr.From(err) // fn's errors are classified already; this is for the commit's
	}
	if ep == nil {
		return nil, nil
	}
	return ep.Unwrap(), nil
}

// requireReceives is the event rule for an endpoint being registered or
// changed: the caller must hold the read scope of every event type the
// endpoint will receive — the types given, else those it has (cur); no type
// at all (every event) needs every read scope. An endpoint belongs to the
// environment, not to the key: it keeps receiving after that key is rotated
// or revoked, so the key must be allowed to read all it sends.
func requireReceives(ctx context.Context, types *[]string, cur []string) error {
	if types != nil {
		cur = *types
	}
	return auth.RequireEventTypes(ctx, cur)
}

func notFound(id resourceid.ID) error {
	return apperr.NotFound("webhook endpoint %s not found", id)
}

// Create registers an endpoint and returns it with its secret, the only time
// the secret is shown.
func (m *Manager) Create(ctx context.Context, in EndpointInput) (*ent.WebhookEndpoint, string, error) {
	if err := in.validate(true); err != nil {
		return nil, "", err
	}
	if err := requireReceives(ctx, in.EventTypes, nil); err != nil {
		return nil, "", err
	}
	filters, err := checkFilters(ctx, in.Filters, nil, deref(in.EventTypes))
	if err != nil {
		return nil, "", err
	}
	if err := m.checkDestination(ctx, *in.URL); err != nil {
		return nil, "", err
	}
	secret := standardwebhooks.NewSecret()
	ep, err := write(ctx, func(c *ent.Client) (*ent.WebhookEndpoint, error) {
		n, err := c.WebhookEndpoint.Query().Count(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		if n >= MaxEndpoints {
			return nil, apperr.Conflict("too_many_endpoints", "an environment has at most %d webhook endpoints: delete one first", MaxEndpoints)
		}
		cr := c.WebhookEndpoint.Create().SetURL(*in.URL).SetSecret(secret)
		if in.Description != nil {
			cr.SetDescription(*in.Description)
		}
		if in.EventTypes != nil {
			cr.SetEventTypes(*in.EventTypes)
		}
		if len(filters) > 0 {
			cr.SetFilters(filters)
		}
		if in.Enabled != nil && !*in.Enabled {
			cr.SetDisabled(true).SetDisabledReason("disabled by " + auth.Actor(ctx))
		}
		ep, err := cr.Save(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		return ep, nil
	})
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// List returns the environment's endpoints, newest first.
func (m *Manager) List(ctx context.Context) ([]*ent.WebhookEndpoint, error) {
	eps, err := client(ctx).WebhookEndpoint.Query().Order(ent.Desc(webhookendpoint.FieldCreatedAt), ent.Desc(webhookendpoint.FieldID)).
		Limit(MaxEndpoints).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	return eps, nil
}

func (m *Manager) get(ctx context.Context, id resourceid.ID) (*ent.WebhookEndpoint, error) {
	if _, err := resourceid.Parse(string(id), resourceid.Webhook); err != nil {
		return nil, notFound(id)
	}
	ep, err := client(ctx).WebhookEndpoint.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return ep, nil
}

// Get returns one endpoint.
func (m *Manager) Get(ctx context.Context, id resourceid.ID) (*ent.WebhookEndpoint, error) {
	return m.get(ctx, id)
}

// Update changes an endpoint. Enabling it clears the reason it was disabled.
func (m *Manager) Update(ctx context.Context, id resourceid.ID, in EndpointInput) (*ent.WebhookEndpoint, error) {
	if err := in.validate(false); err != nil {
		return nil, err
	}
	cur, err := m.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := requireReceives(ctx, in.EventTypes, cur.EventTypes); err != nil {
		return nil, err
	}
	types := cur.EventTypes
	if in.EventTypes != nil {
		types = *in.EventTypes
	}
	filters, err := checkFilters(ctx, in.Filters, cur.Filters, types)
	if err != nil {
		return nil, err
	}
	if in.URL != nil {
		if err := m.checkDestination(ctx, *in.URL); err != nil {
			return nil, err
		}
	}
	return write(ctx, func(c *ent.Client) (*ent.WebhookEndpoint, error) {
		u := c.WebhookEndpoint.UpdateOneID(id)
		if in.URL != nil {
			u.SetURL(*in.URL)
		}
		if in.Description != nil {
			u.SetDescription(*in.Description)
		}
		if in.EventTypes != nil {
			u.SetEventTypes(*in.EventTypes)
		}
		if in.Filters != nil {
			if len(filters) == 0 {
				u.ClearFilters()
			} else {
				u.SetFilters(filters)
			}
		}
		if in.Enabled != nil {
			if *in.Enabled {
				u.SetDisabled(false).SetDisabledReason("")
			} else {
				u.SetDisabled(true).SetDisabledReason("disabled by " + auth.Actor(ctx))
			}
		}
		ep, err := u.Save(ctx)
		if ent.IsNotFound(err) {
			return nil, notFound(id)
		}
		if err != nil {
			return nil, apperr.From(err)
		}
		return ep, nil
	})
}

// Delete removes an endpoint and its deliveries.
func (m *Manager) Delete(ctx context.Context, id resourceid.ID) error {
	if _, err := m.get(ctx, id); err != nil {
		return err
	}
	_, err := write(ctx, func(c *ent.Client) (*ent.WebhookEndpoint, error) {
		if _, err := c.WebhookDelivery.Delete().Where(webhookdelivery.EndpointID(id)).Exec(ctx); err != nil {
			return nil, apperr.From(err)
		}
		if err := c.WebhookEndpoint.DeleteOneID(id).Exec(ctx); err != nil {
			if ent.IsNotFound(err) {
				return nil, notFound(id)
			}
			return nil, apperr.From(err)
		}
		return nil, nil
	})
	return err
}

// RotateSecret gives the endpoint a new secret, returned once; the old one
// keeps signing (both signatures sent) for the grace period.
func (m *Manager) RotateSecret(ctx context.Context, id resourceid.ID) (*ent.WebhookEndpoint, string, error) {
	ep, err := m.get(ctx, id)
	if err != nil {
		return nil, "", err
	}
	secret := standardwebhooks.NewSecret()
	until := m.now().Add(m.opts.SecretGrace)
	ep, err = write(ctx, func(c *ent.Client) (*ent.WebhookEndpoint, error) {
		ep, err := c.WebhookEndpoint.UpdateOne(ep).SetSecret(secret).SetPreviousSecret(ep.Secret).
			SetPreviousSecretExpiresAt(until).Save(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		return ep, nil
	})
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// Resend queues an event again for the endpoint, as a new delivery (with a
// fresh schedule). ref is an event id (evt_…) or a delivery id (whd_…) of
// this endpoint.
func (m *Manager) Resend(ctx context.Context, id resourceid.ID, ref string) (*ent.WebhookDelivery, error) {
	ep, err := m.get(ctx, id)
	if err != nil {
		return nil, err
	}
	c := client(ctx)
	var eventID, typ string
	var payload []byte
	switch {
	case resourceid.ID(ref).Prefix() == resourceid.Event:
		ev, err := c.Event.Get(ctx, resourceid.ID(ref))
		// An event the caller may not read does not exist for it, as in
		// GET /v1/events/{id}: its id must not tell its type.
		if ent.IsNotFound(err) || err == nil && !auth.CanReadEvent(auth.FromContext(ctx), ev.Type) {
			return nil, apperr.Validation(apperr.FieldError{Field: "event_id", Message: quote(ref) + " does not exist"})
		}
		if err != nil {
			return nil, apperr.From(err)
		}
		eventID, typ = string(ev.ID), ev.Type
	case resourceid.ID(ref).Prefix() == resourceid.Delivery:
		d, err := c.WebhookDelivery.Query().Where(webhookdelivery.ID(resourceid.ID(ref)), webhookdelivery.EndpointID(ep.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Validation(apperr.FieldError{Field: "delivery_id", Message: quote(ref) + " is not a delivery of this endpoint"})
		}
		if err != nil {
			return nil, apperr.From(err)
		}
		eventID, typ, payload = d.EventID, d.EventType, d.Payload
	default:
		return nil, apperr.Invalid("event_id", "give an event id (evt_…) or a delivery id (whd_…)")
	}
	// The event rule: resending shows the event to the endpoint's receiver.
	if err := auth.RequireEventType(ctx, typ); err != nil {
		return nil, err
	}
	if ep.Disabled {
		return nil, apperr.Conflict("endpoint_disabled", "webhook endpoint %s is disabled: enable it first", ep.ID)
	}
	d, err := c.WebhookDelivery.Create().SetEndpointID(ep.ID).SetEventID(eventID).SetEventType(typ).
		SetPayload(payload).SetNextAttemptAt(m.now()).SetCreatedAt(m.now()).Save(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	m.wakeCtx(ctx)
	return d, nil
}

// TestObject is data.object of a webhook.test event.
type TestObject struct {
	EndpointID resourceid.ID `json:"endpoint_id"`
	Message    string        `json:"message"`
}

// SendTest queues a test delivery to the endpoint (not an event of the
// log: only this endpoint receives it): typ "" or webhook.test sends a
// webhook.test event; any other type of the catalog an example of that
// type, shaped as the real one (examples.go). Either is marked "test": true.
// The event rule holds: the caller must hold the read scope of typ.
func (m *Manager) SendTest(ctx context.Context, id resourceid.ID, typ string) (*ent.WebhookDelivery, error) {
	if typ == "" {
		typ = TestEventType
	}
	var t eventlog.Type
	if typ != TestEventType {
		var ok bool
		if t, ok = catalogType(typ); !ok {
			return nil, apperr.Validation(apperr.FieldError{Field: "type", Message: quote(typ) + " is not an event type of the catalog (docs/events.md), nor " + TestEventType})
		}
		if err := auth.RequireEventType(ctx, typ); err != nil {
			return nil, err
		}
	}
	ep, err := m.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if ep.Disabled {
		return nil, apperr.Conflict("endpoint_disabled", "webhook endpoint %s is disabled: enable it first", ep.ID)
	}
	did := resourceid.New(resourceid.Delivery)
	env := environment.FromContext(ctx)
	name := ""
	if env != nil {
		name = string(env.Name)
	}
	// The envelope of every event (eventlog.Event), so that a receiver
	// parses a test as it parses the rest: sequence 0, as it is not in the
	// log, its id the delivery's; data.object of webhook.test is a TestObject.
	subject, data := string(ep.ID), eventlog.Data{Object: TestObject{EndpointID: ep.ID, Message: "a test event sent from the Logistics Service"}}
	if typ != TestEventType {
		if subject, data, err = m.exampleEvent(ctx, t, ep, name); err != nil {
			return nil, err
		}
	}
	// occurred_at as a real event of this moment carries it: the sandbox
	// clock's time there, the real time in production.
	occurred, err := eventlog.Occurred(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	body, err := json.Marshal(TestEnvelope{Event: eventlog.Event{
		ID: did, Type: typ, Sequence: 0, Environment: name, CreatedAt: ts(m.now()), OccurredAt: ts(occurred), Actor: auth.Actor(ctx),
		SubjectID: subject, Data: data,
	}, Test: true})
	if err != nil {
		return nil, apperr.Internal(err)
	}
	d, err := client(ctx).WebhookDelivery.Create().SetID(did).SetEndpointID(ep.ID).SetEventType(typ).
		SetPayload(body).SetNextAttemptAt(m.now()).SetCreatedAt(m.now()).Save(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	m.wakeCtx(ctx)
	return d, nil
}

// TestEnvelope is the body of a test delivery: the envelope of every event,
// and test: true after its members. Events of the log never carry test (it
// is not a member of eventlog.Event, nor of its exports): its presence is
// what marks a test, as Stripe's livemode marks test mode.
type TestEnvelope struct {
	eventlog.Event
	Test bool `json:"test"`
}

// catalogType returns the catalog's entry of name.
func catalogType(name string) (eventlog.Type, bool) {
	for _, t := range eventlog.Catalog {
		if t.Name == name {
			return t, true
		}
	}
	return eventlog.Type{}, false
}

// Deliveries lists an endpoint's latest deliveries, newest first; status
// ("pending", "succeeded", "failed") filters when not empty.
func (m *Manager) Deliveries(ctx context.Context, id resourceid.ID, status string, limit int) ([]*ent.WebhookDelivery, error) {
	if _, err := m.get(ctx, id); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > MaxDeliveryPage {
		limit = MaxDeliveryPage
	}
	q := client(ctx).WebhookDelivery.Query().Where(webhookdelivery.EndpointID(id))
	if status != "" {
		st := webhookdelivery.Status(status)
		if err := webhookdelivery.StatusValidator(st); err != nil {
			return nil, apperr.Invalid("status", "must be pending, succeeded, failed or skipped")
		}
		q.Where(webhookdelivery.StatusEQ(st))
	}
	ds, err := q.Order(ent.Desc(webhookdelivery.FieldCreatedAt), ent.Desc(webhookdelivery.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	return ds, nil
}

// DeliveryStats counts an endpoint's deliveries by status.
type DeliveryStats struct {
	Pending   int `json:"pending"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"` // the endpoint's filter did not match; never sent
	Total     int `json:"total"`
}

// Stats counts the endpoint's deliveries by status, in one statement.
func (m *Manager) Stats(ctx context.Context, id resourceid.ID) (DeliveryStats, error) {
	var st DeliveryStats
	if _, err := m.get(ctx, id); err != nil {
		return st, err
	}
	var rows []struct {
		Status webhookdelivery.Status `json:"status"`
		Count  int                    `json:"count"`
	}
	if err := client(ctx).WebhookDelivery.Query().Where(webhookdelivery.EndpointID(id)).
		GroupBy(webhookdelivery.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &rows); err != nil {
		return st, apperr.From(err)
	}
	for _, r := range rows {
		switch r.Status {
		case webhookdelivery.StatusPending:
			st.Pending = r.Count
		case webhookdelivery.StatusSucceeded:
			st.Succeeded = r.Count
		case webhookdelivery.StatusFailed:
			st.Failed = r.Count
		case webhookdelivery.StatusSkipped:
			st.Skipped = r.Count
		}
		st.Total += r.Count
	}
	return st, nil
}

// wakeCtx wakes the dispatcher of the request's environment (new work).
func (m *Manager) wakeCtx(ctx context.Context) {
	if env := environment.FromContext(ctx); env != nil {
		notify(m.wake(env))
	}
}

// IsRefused reports whether err is a destination refused by the address checks.
func IsRefused(err error) bool { return errors.Is(err, errRefused) }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
