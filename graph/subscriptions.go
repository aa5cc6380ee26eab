package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/ent"
	"logistics/graph/model"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/eventstream"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

// Limits of a subscription's arguments.
const (
	maxEventTypes   = 50
	maxEventTypeLen = 100
)

// payload is one message of a subscription and the sequence of its event.
type payload[T any] struct {
	seq int64
	v   T
}

// convertFunc turns a batch of events into the subscription's messages
// (those that match its filter), in sequence order.
type convertFunc[T any] func(ctx context.Context, b *eventstream.Batch) ([]payload[T], error)

// startStream subscribes the caller to the environment's event log from
// after (or the SSE Last-Event-ID, or now) and returns the channel gqlgen
// reads the messages from. The stream ends when the client leaves, the
// caller's credentials stop working (checked every recheck), the client
// reads too slowly, or the server shuts down.
func startStream[T any](ctx context.Context, r *Resolver, after *int, convert convertFunc[T]) (<-chan T, error) {
	p := auth.FromContext(ctx)
	env := environment.FromContext(ctx)
	if p == nil || env == nil {
		return nil, auth.ErrMissing()
	}
	if r.Streams == nil {
		return nil, apperr.Unavailable("subscriptions are not enabled on this server")
	}
	st := streamFrom(ctx)
	var from *int64
	switch {
	case after != nil:
		if *after < 0 {
			return nil, apperr.Invalid("after", "must be a sequence number (an integer ≥ 0); 0 replays the whole log")
		}
		v := int64(*after)
		from = &v
	case st != nil && st.lastEvent != nil:
		from = st.lastEvent
	}
	sub, err := r.Streams.Subscribe(ctx, env, p.RateKey(), from)
	if err != nil && isClosed(r.Streams.Closing()) {
		// Refused as a running subscription ends at shutdown, so that the
		// client's resume loop sees the same ending: the error message
		// (WebSocket) or the final error event (SSE), on a closed channel.
		out := make(chan T)
		close(out)
		st.started()
		endStream(ctx, r, st, eventstream.ErrShutdown, nil)
		st.stopped()
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	// At most OutBuffer messages wait for the client's connection; when
	// they stay full for slowGrace, the client is too slow and its stream
	// is closed (CloseTooSlow). It resumes by sequence.
	out := make(chan T, max(r.OutBuffer, 1))
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		// Credentials are checked again while the stream lasts: a revoked
		// key or an ended session ends it within the key cache's time.
		t := time.NewTicker(r.recheckEvery())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := auth.Recheck(ctx); err != nil && ctx.Err() == nil {
					cancel(errRevoked{apperr.From(err)})
					return
				}
			}
		}
	}()
	st.started()
	go func() {
		defer close(out)
		defer st.stopped()
		defer sub.Close()
		defer cancel(nil)
		for {
			b, err := sub.Next(ctx)
			if err == nil {
				var items []payload[T]
				items, err = convert(ctx, b)
				for _, it := range items {
					if err != nil {
						break
					}
					st.sent(it.seq)
					err = push(ctx, out, it.v)
				}
			}
			if err != nil {
				endStream(ctx, r, st, err, context.Cause(ctx))
				return
			}
		}
	}()
	return out, nil
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

type errRevoked struct{ err *apperr.Error }

func (e errRevoked) Error() string { return e.err.Message }

// slowGrace is how long a subscription's buffer may stay full before its
// client counts as too slow. A burst larger than the buffer — a page of the
// log read when catching up from an old sequence, every event one poll of
// the log found — fills it at once even for a client that reads as fast as
// it can; such a client makes room within a moment. A client that stopped
// reading does not.
const slowGrace = time.Second

// push hands v to the client's connection, waiting up to slowGrace for room
// in out.
func push[T any](ctx context.Context, out chan<- T, v T) error {
	select {
	case out <- v:
		return nil
	default:
	}
	t := time.NewTimer(slowGrace)
	defer t.Stop()
	select {
	case out <- v:
		return nil
	case <-t.C:
		return errTooSlow
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errTooSlow = errors.New("the client read too slowly (its buffer filled): reconnect and resume with the last sequence received")

// endStream tells the client why its stream ends: an error message on the
// subscription (WebSocket) and a close code on the connection, or a final
// error event (SSE).
func endStream(ctx context.Context, r *Resolver, st *stream, err, cause error) {
	var revoked errRevoked
	switch {
	case errors.As(cause, &revoked):
		addStreamError(ctx, st, CloseForbidden, "UNAUTHENTICATED", "the credentials of this subscription stopped working: "+revoked.err.Message)
	case ctx.Err() != nil:
		// The client left (or its connection closed): nothing to say, and
		// gqlgen, no longer reading the subscription, may be reading its
		// errors. At shutdown the connection stays open until each
		// subscription's message is written (stream.end).
	case errors.Is(err, errTooSlow):
		addStreamError(ctx, st, CloseTooSlow, "SUBSCRIBER_TOO_SLOW", err.Error())
	case errors.Is(err, eventstream.ErrShutdown):
		addStreamError(ctx, st, CloseGoingAway, "SHUTTING_DOWN", err.Error())
	default:
		r.Log.ErrorContext(ctx, "subscription: reading the event log", "err", err)
		addStreamError(ctx, st, CloseInternal, "INTERNAL_SERVER_ERROR", "the event log could not be read: reconnect and resume with the last sequence received")
	}
}

func addStreamError(ctx context.Context, st *stream, code int, gqlCode, msg string) {
	if st == nil {
		return
	}
	if !st.sse { // the WebSocket transport sends it as the subscription's error message
		st.owe(gqlCode)
		gqltransport.AddSubscriptionError(ctx, &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": gqlCode}})
	}
	// At shutdown every subscription of the connection says why it ends
	// before the close; for the other reasons the close follows this one.
	st.end(code, gqlCode, msg, code == CloseGoingAway)
}

func (r *Resolver) recheckEvery() time.Duration {
	return max(r.Recheck, 500*time.Millisecond)
}

// load evaluates a subscription's filter on a batch, once per batch and
// filter (shared by the subscribers with the same filter): the rows among
// ids that match it, by id. The evaluation is the webhook filters' own
// (filter.Match): the where input's predicate and the ids, in one query.
func load[N any](ctx context.Context, b *eventstream.Batch, m *filter.Match[N], ids []resourceid.ID) (map[resourceid.ID]N, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	env := environment.FromContext(ctx)
	v, err := b.Resolve(m.Key(), func() (any, error) {
		// Not the subscriber's context: the result is shared.
		qctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return m.Rows(qctx, env.DB.Client, ids)
	})
	if err != nil {
		return nil, err
	}
	return v.(map[resourceid.ID]N), nil
}

// subjects lists the subjects of b's events whose type match accepts.
func subjects(b *eventstream.Batch, match func(string) bool) []resourceid.ID {
	var ids []resourceid.ID
	for _, e := range b.Events {
		if match(e.Type) {
			ids = append(ids, resourceid.ID(e.SubjectID))
		}
	}
	return ids
}

func seqOf(e *ent.Event) int64 {
	if e.Sequence == nil {
		return 0
	}
	return int64(*e.Sequence)
}

// orderChanges is orderChanged's conversion: the order events of a batch,
// with each order as it is now if it matches where.
func orderChanges(where *ent.OrderWhereInput) (convertFunc[*model.OrderChange], error) {
	m, err := filter.OrderMatch(where)
	if err != nil {
		return nil, err
	}
	match := func(t string) bool { return strings.HasPrefix(t, "order.") }
	return func(ctx context.Context, b *eventstream.Batch) ([]payload[*model.OrderChange], error) {
		rows, err := load(ctx, b, m, subjects(b, match))
		if err != nil {
			return nil, err
		}
		var out []payload[*model.OrderChange]
		for _, e := range b.Events {
			if !match(e.Type) {
				continue
			}
			o := rows[resourceid.ID(e.SubjectID)]
			if o == nil && !m.Empty() {
				continue // does not match (or is gone: a filter cannot be checked)
			}
			out = append(out, payload[*model.OrderChange]{seqOf(e), &model.OrderChange{
				Sequence: int(seqOf(e)), Type: e.Type, EventID: e.ID, Order: o}})
		}
		return out, nil
	}, nil
}

// trackingEntriesAdded is trackingEntryAdded's conversion.
func trackingEntriesAdded(where *ent.TrackingEntryWhereInput) (convertFunc[*model.TrackingEntryChange], error) {
	m, err := filter.TrackingEntryMatch(where)
	if err != nil {
		return nil, err
	}
	match := func(t string) bool { return t == "tracking_entry.created" }
	return func(ctx context.Context, b *eventstream.Batch) ([]payload[*model.TrackingEntryChange], error) {
		rows, err := load(ctx, b, m, subjects(b, match))
		if err != nil {
			return nil, err
		}
		var out []payload[*model.TrackingEntryChange]
		for _, e := range b.Events {
			if !match(e.Type) {
				continue
			}
			t := rows[resourceid.ID(e.SubjectID)]
			if t == nil && !m.Empty() {
				continue
			}
			out = append(out, payload[*model.TrackingEntryChange]{seqOf(e), &model.TrackingEntryChange{
				Sequence: int(seqOf(e)), Type: e.Type, EventID: e.ID, TrackingEntry: t}})
		}
		return out, nil
	}, nil
}

// stockChanges is stockChanged's conversion.
func stockChanges(where *ent.ItemWhereInput) (convertFunc[*model.StockChange], error) {
	m, err := filter.ItemMatch(where)
	if err != nil {
		return nil, err
	}
	match := func(t string) bool { return strings.HasPrefix(t, "item.") }
	return func(ctx context.Context, b *eventstream.Batch) ([]payload[*model.StockChange], error) {
		rows, err := load(ctx, b, m, subjects(b, match))
		if err != nil {
			return nil, err
		}
		var out []payload[*model.StockChange]
		for _, e := range b.Events {
			if !match(e.Type) {
				continue
			}
			it := rows[resourceid.ID(e.SubjectID)]
			if it == nil && !m.Empty() {
				continue
			}
			out = append(out, payload[*model.StockChange]{seqOf(e), &model.StockChange{
				Sequence: int(seqOf(e)), Type: e.Type, EventID: e.ID, Item: it}})
		}
		return out, nil
	}, nil
}

// eventsOf is events' conversion: the events whose type is in types ("x.*"
// matches every type starting with "x."), or all — of those, only the ones
// the caller may read (the event rule, auth.CanReadEvent). A type or family
// in types that the caller may not read is refused (403 naming the scope).
func eventsOf(ctx context.Context, types []string) (convertFunc[*ent.Event], error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, auth.ErrMissing()
	}
	if len(types) > maxEventTypes {
		return nil, apperr.Invalid("types", "at most %d types", maxEventTypes)
	}
	for _, t := range types {
		if t == "" || len(t) > maxEventTypeLen {
			return nil, apperr.Invalid("types", "each type is 1 to %d characters, e.g. order.created or order.*", maxEventTypeLen)
		}
	}
	for _, t := range types {
		if err := auth.RequireEventType(ctx, t); err != nil {
			return nil, err
		}
	}
	match := func(t string) bool {
		if !auth.CanReadEvent(p, t) {
			return false
		}
		if len(types) == 0 {
			return true
		}
		for _, want := range types {
			if want == t || (strings.HasSuffix(want, ".*") && strings.HasPrefix(t, want[:len(want)-1])) {
				return true
			}
		}
		return false
	}
	return func(_ context.Context, b *eventstream.Batch) ([]payload[*ent.Event], error) {
		var out []payload[*ent.Event]
		for _, e := range b.Events {
			if match(e.Type) {
				out = append(out, payload[*ent.Event]{seqOf(e), eventlog.Redacted(e)})
			}
		}
		return out, nil
	}, nil
}
