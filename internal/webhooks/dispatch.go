package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/webhookdelivery"
	"logistics/ent/webhookendpoint"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
	"logistics/internal/tracing"
	"logistics/standardwebhooks"
)

// claim takes up to n due deliveries: in one transaction, it selects them
// (skipping rows another instance holds locked, on PostgreSQL) and moves
// their next_attempt_at one lease ahead, counting the attempt. Until the
// lease ends no other claimer sees them; if this process dies mid-attempt,
// they come due again then.
func (m *Manager) claim(ctx context.Context, env *environment.Env, n int) ([]*ent.WebhookDelivery, error) {
	tx, err := env.DB.Client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	now := m.now()
	q := tx.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(now)).
		Order(webhookdelivery.ByNextAttemptAt(), webhookdelivery.ByID()).
		Limit(n)
	if env.DB.Dialect == dialect.Postgres {
		// An event is sent once the sequencer has numbered it (its payload
		// carries the number; eventlog's sequencer.go), a moment after its
		// commit. Test deliveries have no event.
		q = q.Where(numberedEvent).ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
	ds, err := q.All(ctx)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	ids := make([]resourceid.ID, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	until := now.Add(m.lease())
	if err := tx.WebhookDelivery.Update().Where(webhookdelivery.IDIn(ids...)).
		AddAttempts(1).SetNextAttemptAt(until).SetLastAttemptAt(now).Exec(ctx); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for _, d := range ds {
		d.Attempts++
		d.NextAttemptAt = until
	}
	return ds, nil
}

// result is what one attempt gave.
type result struct {
	status  int
	latency time.Duration
	body    string
	err     error
}

// attempt sends one claimed delivery and records what happened.
func (m *Manager) attempt(ctx context.Context, env *environment.Env, d *ent.WebhookDelivery) {
	c := env.DB.Client
	ep, err := c.WebhookEndpoint.Get(ctx, d.EndpointID)
	if ent.IsNotFound(err) {
		return // deleted with its deliveries meanwhile
	}
	if err != nil {
		m.log.Warn("webhooks: load endpoint", "environment", env.Name, "delivery", d.ID, "err", err)
		return // due again when the lease ends
	}
	var (
		r    result
		span trace.Span
	)
	if ep.Disabled {
		r.err = errDisabled
	} else {
		var (
			body   []byte
			parent *string
		)
		body, parent, r.err = m.body(ctx, env, d)
		if m.opts.Tracer != nil {
			ctx, span = m.startAttempt(tracing.FromTraceParent(ctx, parent), env, ep, d)
		}
		if r.err == nil {
			r = m.send(ctx, ep, d, body)
		}
		m.attempts.Add(1)
		if r.err == nil && r.status >= 200 && r.status < 300 {
			m.delivered.Add(1)
		}
	}
	if err := m.record(ctx, env, ep, d, r); err != nil {
		m.log.WarnContext(ctx, "webhooks: record attempt", "environment", env.Name, "delivery", d.ID, "err", err)
	}
	if span != nil {
		endAttempt(span, r)
	}
}

// startAttempt begins an attempt's span (a client span: the attempt is an
// HTTP POST) in ctx, which holds the trace of the event's change when it
// was traced.
func (m *Manager) startAttempt(ctx context.Context, env *environment.Env, ep *ent.WebhookEndpoint, d *ent.WebhookDelivery) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", http.MethodPost),
		attribute.String("url.full", eventlog.RedactURL(ep.URL)), // its query may hold a receiver's token
		attribute.String("logistics.environment", string(env.Name)),
		attribute.String("logistics.webhook.endpoint_id", string(ep.ID)),
		attribute.String("logistics.webhook.delivery_id", string(d.ID)),
		attribute.Int("logistics.webhook.attempt", d.Attempts),
		attribute.String("logistics.event.type", d.EventType),
	}
	if d.EventID != "" {
		attrs = append(attrs, attribute.String("logistics.event.id", d.EventID))
	}
	return m.opts.Tracer.Start(ctx, "webhook attempt", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endAttempt closes an attempt's span with its outcome.
func endAttempt(span trace.Span, r result) {
	if r.status != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", r.status))
	}
	switch {
	case r.err != nil:
		span.RecordError(r.err)
		span.SetStatus(codes.Error, r.err.Error())
	case r.status < 200 || r.status >= 300:
		span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(r.status))
	}
	span.End()
}

// body renders what a delivery sends, and returns the traceparent stored
// with its event (nil: none).
func (m *Manager) body(ctx context.Context, env *environment.Env, d *ent.WebhookDelivery) ([]byte, *string, error) {
	if d.EventID == "" {
		return d.Payload, nil, nil
	}
	ev, err := env.DB.Client.Event.Get(ctx, resourceid.ID(d.EventID))
	if err != nil {
		return nil, nil, fmt.Errorf("load event %s: %w", d.EventID, err)
	}
	b, err := eventlog.JSON(string(env.Name), ev)
	return b, ev.TraceParent, err
}

// webhookID is the webhook-id header: the event's id, the same on every
// retry and resend so a receiver can ignore what it already handled (a test
// delivery has no event and uses its own id).
func webhookID(d *ent.WebhookDelivery) string {
	if d.EventID != "" {
		return d.EventID
	}
	return string(d.ID)
}

// secrets are the secrets that sign now: the current one, and the previous
// one during its grace period after a rotation.
func (m *Manager) secrets(ep *ent.WebhookEndpoint) []string {
	out := []string{ep.Secret}
	if ep.PreviousSecret != "" && ep.PreviousSecretExpiresAt != nil && m.now().Before(*ep.PreviousSecretExpiresAt) {
		out = append(out, ep.PreviousSecret)
	}
	return out
}

func (m *Manager) send(ctx context.Context, ep *ent.WebhookEndpoint, d *ent.WebhookDelivery, body []byte) result {
	now := m.now()
	sig, err := standardwebhooks.SignAll(m.secrets(ep), webhookID(d), now, body)
	if err != nil {
		return result{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Logistics-Webhooks/1")
	req.Header.Set(standardwebhooks.HeaderID, webhookID(d))
	req.Header.Set(standardwebhooks.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderSignature, sig)
	if m.opts.Tracer != nil {
		tracing.Inject(ctx, req.Header) // the attempt's span: the receiver's work joins the trace
	}
	start := time.Now()
	resp, err := m.client.Do(req)
	if err != nil {
		return result{latency: time.Since(start), err: err}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, int64(m.opts.ResponseBytes)))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets a small response's connection be reused
	return result{status: resp.StatusCode, latency: time.Since(start), body: validUTF8(head)}
}

// validUTF8 keeps the response's first bytes storable as text.
func validUTF8(b []byte) string {
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1] // a character cut by the cap
	}
	if !utf8.Valid(b) {
		return ""
	}
	return string(b)
}

// record stores an attempt's outcome, if the claim is still ours (a delivery
// whose lease ran out may have been claimed again: its newer attempt wins).
func (m *Manager) record(ctx context.Context, env *environment.Env, ep *ent.WebhookEndpoint, d *ent.WebhookDelivery, r result) error {
	now := m.now()
	errText := ""
	if r.err != nil {
		errText = r.err.Error()
		if len(errText) > 500 {
			errText = errText[:500]
		}
	}
	return withTx(ctx, env.DB.Client, func(ctx context.Context, tx *ent.Tx) error {
		u := tx.WebhookDelivery.Update().
			Where(webhookdelivery.ID(d.ID), webhookdelivery.Attempts(d.Attempts), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
			SetLastStatusCode(r.status).SetLastLatencyMs(int(r.latency.Milliseconds())).
			SetLastResponse(r.body).SetLastError(errText)
		var disable string
		switch {
		case r.err == nil && r.status >= 200 && r.status < 300:
			u.SetStatus(webhookdelivery.StatusSucceeded).SetDeliveredAt(now)
		case errors.Is(r.err, errDisabled):
			u.SetStatus(webhookdelivery.StatusFailed)
		case r.err == nil && r.status == http.StatusGone:
			u.SetStatus(webhookdelivery.StatusFailed)
			disable = "the endpoint answered 410 Gone"
		case d.Attempts > len(m.opts.Schedule):
			u.SetStatus(webhookdelivery.StatusFailed)
			// Disabled when nothing got through since this delivery was
			// created: the endpoint failed for the whole schedule.
			ok, err := tx.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID),
				webhookdelivery.StatusEQ(webhookdelivery.StatusSucceeded), webhookdelivery.DeliveredAtGT(d.CreatedAt)).Exist(ctx)
			if err != nil {
				return err
			}
			if !ok {
				disable = fmt.Sprintf("every attempt failed for %s (%d attempts)", total(m.opts.Schedule), d.Attempts)
			}
		default:
			u.SetNextAttemptAt(now.Add(m.opts.Jitter(m.opts.Schedule[d.Attempts-1])))
		}
		n, err := u.Save(ctx)
		if err != nil || n == 0 || disable == "" {
			return err
		}
		return m.disable(ctx, tx, ep.ID, disable)
	})
}

// disable turns an endpoint off for a reason and records the event
// webhook_endpoint.disabled (delivered to the other endpoints that want it).
func (m *Manager) disable(ctx context.Context, tx *ent.Tx, id resourceid.ID, reason string) error {
	n, err := tx.WebhookEndpoint.Update().Where(webhookendpoint.ID(id), webhookendpoint.Disabled(false)).
		SetDisabled(true).SetDisabledReason(reason).Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	ep, err := tx.WebhookEndpoint.Get(ctx, id)
	if err != nil {
		return err
	}
	m.log.WarnContext(ctx, "webhooks: endpoint disabled", "endpoint", id, "reason", reason)
	return recordEvent(ctx, "webhook_endpoint.disabled", id, "system", Render(ep), map[string]any{"reason": reason})
}

// recordEvent records a domain event of this package in the transaction of
// ctx (started by withTx through eventlog.Begin, so it is numbered at commit
// like every other event): the service's emit is for requests; these come
// from the dispatcher too.
func recordEvent(ctx context.Context, typ string, subject resourceid.ID, actor string, object any, extra map[string]any) error {
	// Round-trip through JSON so the stored map holds plain JSON values.
	b, err := json.Marshal(object)
	if err != nil {
		return err
	}
	var plain map[string]any
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	eventlog.RedactObject(typ, plain)
	return eventlog.Record(ctx, eventlog.Change{Type: typ, SubjectID: subject, Actor: actor, Object: plain, Extra: extra})
}

func total(s []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range s {
		t += d
	}
	return t
}

// withTx runs fn in a transaction of c, prepared to record events
// (eventlog.Begin): they are numbered and written at its commit.
func withTx(ctx context.Context, c *ent.Client, fn func(context.Context, *ent.Tx) error) error {
	tx, err := c.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(eventlog.Begin(ctx, tx), tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// numberedEvent is the deliveries whose event has its sequence number, or
// that have no event.
func numberedEvent(s *sql.Selector) {
	ev := sql.Table(event.Table)
	s.Where(sql.Or(
		sql.EQ(s.C(webhookdelivery.FieldEventID), ""),
		sql.In(s.C(webhookdelivery.FieldEventID), sql.Select(ev.C(event.FieldID)).From(ev).Where(sql.NotNull(ev.C(event.FieldSequence)))),
	))
}

// maxHasten is how many waiting retries one Hasten makes due at most.
const maxHasten = 1000

// Hasten makes the environment's retries waiting until the real time until
// due now, and wakes the dispatcher: the sandbox's test clock, advanced,
// sends at once the retries its new time has reached. A delivery in flight
// (claimed: its next attempt is its lease's end) is left alone, so it is
// not sent twice. It returns how many it made due.
func (m *Manager) Hasten(ctx context.Context, env *environment.Env, until time.Time) (int, error) {
	now := m.now()
	ds, err := env.DB.Client.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtGT(now),
			webhookdelivery.NextAttemptAtLTE(until), webhookdelivery.LastAttemptAtNotNil()).
		Order(webhookdelivery.ByNextAttemptAt(), webhookdelivery.ByID()).
		Limit(maxHasten).All(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range ds {
		if d.LastAttemptAt.Add(m.lease()).Equal(d.NextAttemptAt) {
			continue // claimed: in flight, or its claimer died and its lease will end
		}
		k, err := env.DB.Client.WebhookDelivery.Update().
			Where(webhookdelivery.ID(d.ID), webhookdelivery.Attempts(d.Attempts), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
			SetNextAttemptAt(now).Save(ctx)
		if err != nil {
			return n, err
		}
		n += k
	}
	if n > 0 {
		notify(m.wake(env))
	}
	return n, nil
}
