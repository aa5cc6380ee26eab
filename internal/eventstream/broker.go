// Package eventstream feeds live subscriptions (GraphQL over WebSocket and
// Server-Sent Events) from the event log.
//
// One reader per environment per instance (a hub) reads the log by sequence
// whenever the environment's eventlog.Log wakes it (a commit here, a
// PostgreSQL notification from another instance) and at least every Poll,
// and hands each batch of events to every subscriber without waiting for
// any: a subscriber whose inbox is full is marked lagging and catches up by
// reading the log itself, so a slow subscriber never slows the hub, the
// writers or the others. A subscriber that starts from an earlier sequence
// (a client resuming) reads the log up to the hub's position first, then
// takes the hub's batches, skipping what it has already passed: no gap and
// no duplicate at the seam, because both sides read the same numbered log.
//
// Filtering is per batch: subscribers with the same filter share one query
// per batch (Batch.Resolve), so a thousand subscribers with a few distinct
// filters cost a few queries per wake-up, not a thousand.
package eventstream

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/tracing"
)

// Options configure a Broker.
type Options struct {
	// PerKey is the most subscriptions one API key or console session may
	// hold open on this instance at once (0: 100).
	PerKey int
	// Buffer is the most events waiting for one subscriber before it falls
	// back to reading the log itself (0: 1000).
	Buffer int
	// Poll is how often a hub re-reads the log without a wake-up (0: 2 s).
	Poll time.Duration
	// PageSize is how many events one read of the log takes (0: 500).
	PageSize int
	Log      *slog.Logger
	// Tracer makes a span per event handed to subscribers, a child of the
	// span that recorded it (its stored traceparent). nil: none.
	Tracer trace.Tracer
}

// Broker is every hub of this instance, and the per-key count.
type Broker struct {
	opt Options

	mu      sync.Mutex
	hubs    map[*environment.Env]*hub
	perKey  map[string]int
	open    map[OpenKey]int // by environment and transport; a count that fell to 0 stays, at 0
	closing chan struct{}   // closed by Shutdown
	active  sync.WaitGroup
}

// New returns a Broker.
func New(opt Options) *Broker {
	if opt.PerKey <= 0 {
		opt.PerKey = 100
	}
	if opt.Buffer <= 0 {
		opt.Buffer = 1000
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.PageSize <= 0 {
		opt.PageSize = 500
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	return &Broker{opt: opt, hubs: map[*environment.Env]*hub{}, perKey: map[string]int{}, open: map[OpenKey]int{}, closing: make(chan struct{})}
}

// ErrShutdown ends every subscription when the server stops.
var ErrShutdown = errors.New("the server is shutting down: reconnect and resume with the last sequence received")

// Closing is closed when the server starts shutting down.
func (b *Broker) Closing() <-chan struct{} { return b.closing }

// Shutdown ends every subscription (their clients are told, then
// disconnected) and waits up to ctx for them to finish.
func (b *Broker) Shutdown(ctx context.Context) {
	b.mu.Lock()
	select {
	case <-b.closing:
	default:
		close(b.closing)
	}
	b.mu.Unlock()
	done := make(chan struct{})
	go func() { b.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Track counts a connection (or any work) that Shutdown should wait for;
// call the returned function when it ends.
func (b *Broker) Track() func() {
	b.active.Add(1)
	var once sync.Once
	return func() { once.Do(b.active.Done) }
}

// Counts reports the open subscriptions per key (for tests and metrics).
func (b *Broker) Counts() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int, len(b.perKey))
	for k, v := range b.perKey {
		out[k] = v
	}
	return out
}

// OpenKey is an environment and the transport its subscriptions came by.
type OpenKey struct {
	Environment environment.Name
	Transport   string // WithTransport's name; "other" when none was given
}

type transportKey struct{}

// WithTransport names, for Open, the transport (e.g. "websocket", "sse")
// whose subscriptions ctx's Subscribe calls register.
func WithTransport(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, transportKey{}, name)
}

// Open reports the subscriptions open on this instance by environment and
// transport (for metrics). A pair seen once stays, at 0 when none is open.
func (b *Broker) Open() map[OpenKey]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[OpenKey]int, len(b.open))
	for k, v := range b.open {
		out[k] = v
	}
	return out
}

// Subscribe registers a subscriber of env's log for key (the caller's API key
// or session), starting after sequence after (nil: after the last event
// committed now). It fails when key already holds PerKey subscriptions or the
// server is shutting down. Call Sub.Close when done.
func (b *Broker) Subscribe(ctx context.Context, env *environment.Env, key string, after *int64) (*Sub, error) {
	b.mu.Lock()
	select {
	case <-b.closing:
		b.mu.Unlock()
		return nil, apperr.Unavailable("the server is shutting down: reconnect")
	default:
	}
	if b.perKey[key] >= b.opt.PerKey {
		b.mu.Unlock()
		return nil, apperr.RateLimited("too many subscriptions open for this caller (the limit is %d per key or session on one instance): close one first", b.opt.PerKey)
	}
	b.perKey[key]++
	ok := OpenKey{Environment: env.Name, Transport: "other"}
	if t, _ := ctx.Value(transportKey{}).(string); t != "" {
		ok.Transport = t
	}
	b.open[ok]++
	h := b.hubs[env]
	if h == nil {
		h = &hub{b: b, env: env, subs: map[*Sub]struct{}{}, pos: -1}
		b.hubs[env] = h
	}
	b.mu.Unlock()
	release := func() {
		b.mu.Lock()
		if b.perKey[key]--; b.perKey[key] <= 0 {
			delete(b.perKey, key)
		}
		b.open[ok]--
		b.mu.Unlock()
	}
	s, err := h.add(ctx, after)
	if err != nil {
		release()
		return nil, err
	}
	s.release = release
	return s, nil
}

// hub is the one reader of an environment's log on this instance.
type hub struct {
	b   *Broker
	env *environment.Env

	mu      sync.Mutex
	subs    map[*Sub]struct{}
	pos     int64 // the last sequence read and handed out; -1 before the first read
	running bool
}

// add registers a subscriber; the hub's reader starts with the first one
// and stops with the last.
func (h *hub) add(ctx context.Context, after *int64) (*Sub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pos < 0 {
		last, err := lastSequence(ctx, h.env.DB.Client)
		if err != nil {
			return nil, apperr.From(err)
		}
		h.pos = last
		h.published(last)
	}
	s := &Sub{hub: h, in: make(chan *Batch, 64), lagged: make(chan struct{}, 1)}
	s.joinAt.Store(h.pos)
	s.cursor = h.pos
	if after != nil {
		s.cursor = *after
	}
	h.subs[s] = struct{}{}
	if !h.running {
		h.running = true
		go h.run()
	}
	return s, nil
}

// published tells the environment's log what the hub has handed out, for
// the log's lag (eventlog.Log.Lag); -1: the hub stopped.
func (h *hub) published(seq int64) {
	if h.env.Events != nil {
		h.env.Events.Published(seq)
	}
}

func (h *hub) remove(s *Sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

func lastSequence(ctx context.Context, c *ent.Client) (int64, error) {
	e, err := c.Event.Query().Where(event.SequenceNotNil()).Order(ent.Desc(event.FieldSequence)).First(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return int64(*e.Sequence), nil
}

// readAfter reads up to limit events after sequence after (and at most up
// to sequence until, when until ≥ 0), in sequence order.
func readAfter(ctx context.Context, c *ent.Client, after, until int64, limit int) ([]*ent.Event, error) {
	q := c.Event.Query().Where(event.SequenceGT(int(after)))
	if until >= 0 {
		q.Where(event.SequenceLTE(int(until)))
	}
	return q.Order(ent.Asc(event.FieldSequence)).Limit(limit).All(ctx)
}

// run reads the log on every wake-up (and every Poll) and hands each batch
// to every subscriber; it returns once no subscriber is left.
func (h *hub) run() {
	ctx := context.Background()
	poll := time.NewTimer(h.b.opt.Poll)
	defer poll.Stop()
	for {
		var wake <-chan struct{}
		if h.env.Events != nil {
			wake = h.env.Events.Changed()
		}
		h.mu.Lock()
		if len(h.subs) == 0 {
			h.running = false
			h.pos = -1 // re-read at the next start: events may commit meanwhile
			h.published(-1)
			h.mu.Unlock()
			return
		}
		pos := h.pos
		h.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		evs, err := readAfter(rctx, h.env.DB.Client, pos, -1, h.b.opt.PageSize)
		cancel()
		if err != nil {
			h.b.opt.Log.Warn("subscriptions: reading the event log", "environment", h.env.Name, "err", err)
		}
		if len(evs) > 0 {
			h.fanOut(newBatch(evs))
			if len(evs) == h.b.opt.PageSize {
				continue // more to read
			}
		}
		poll.Reset(h.b.opt.Poll)
		select {
		case <-wake:
		case <-poll.C:
		case <-h.b.closing:
			// Subscribers end themselves; keep serving until they are gone.
			select {
			case <-wake:
			case <-poll.C:
			}
		}
	}
}

// fanOut hands b to every subscriber without blocking: a full inbox marks
// the subscriber lagging (it will read the log itself) instead.
func (h *hub) fanOut(b *Batch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pos = b.Last
	h.published(b.Last)
	if h.b.opt.Tracer != nil {
		h.publishSpans(b)
	}
	for s := range h.subs {
		if s.lagging {
			continue
		}
		if s.pending.Load()+int64(len(b.Events)) > int64(h.b.opt.Buffer) {
			s.lagging = true
			select {
			case s.lagged <- struct{}{}:
			default:
			}
			continue
		}
		select {
		case s.in <- b:
			s.pending.Add(int64(len(b.Events)))
		default:
			s.lagging = true
			select {
			case s.lagged <- struct{}{}:
			default:
			}
		}
	}
}

// publishSpans records a span per event of b, published to the hub's
// subscribers, in the trace of the change that recorded the event. Each
// subscriber filters and renders the batch on its own goroutine, so the
// span marks the hand-over, not each message.
func (h *hub) publishSpans(b *Batch) {
	for _, e := range b.Events {
		attrs := []attribute.KeyValue{
			attribute.String("messaging.system", "logistics"),
			attribute.String("messaging.operation.type", "send"),
			attribute.String("messaging.destination.name", "subscriptions"),
			attribute.String("logistics.environment", string(h.env.Name)),
			attribute.String("logistics.event.id", string(e.ID)),
			attribute.String("logistics.event.type", e.Type),
			attribute.Int("logistics.subscriptions", len(h.subs)),
		}
		if e.Sequence != nil {
			attrs = append(attrs, attribute.Int("logistics.event.sequence", *e.Sequence))
		}
		ctx := tracing.FromTraceParent(context.Background(), e.TraceParent)
		_, span := h.b.opt.Tracer.Start(ctx, "publish "+e.Type, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(attrs...))
		span.End()
	}
}

// Batch is one read of the log, shared by every subscriber that receives
// it: treat it as read-only.
type Batch struct {
	Events []*ent.Event
	Last   int64

	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

func newBatch(evs []*ent.Event) *Batch {
	b := &Batch{Events: evs, memo: map[string]*memoEntry{}}
	if n := len(evs); n > 0 && evs[n-1].Sequence != nil {
		b.Last = int64(*evs[n-1].Sequence)
	}
	return b
}

// Resolve returns fn's result for key, computing it once per batch: the
// subscribers of a batch with the same filter (the same key) share one
// query.
func (b *Batch) Resolve(key string, fn func() (any, error)) (any, error) {
	b.mu.Lock()
	e := b.memo[key]
	if e == nil {
		e = &memoEntry{}
		b.memo[key] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fn() })
	return e.v, e.err
}

// Sub is one subscriber: Next returns its batches in sequence order, each
// event exactly once.
type Sub struct {
	hub     *hub
	in      chan *Batch
	lagged  chan struct{}
	pending atomic.Int64
	release func()
	closed  atomic.Bool

	// The hub's position when the subscriber (re)joined: written under
	// hub.mu, read by Next without it (every subscriber's every batch would
	// otherwise queue on the hub's lock while it fans out).
	joinAt atomic.Int64
	// Guarded by hub.mu.
	lagging bool

	cursor int64 // the last sequence handed to the caller (only Next touches it)
}

// Cursor is the last sequence Next has returned (or the starting point).
func (s *Sub) Cursor() int64 { return s.cursor }

// Next returns the next batch of events after the cursor, waiting until
// there is one or ctx ends. The events it returns are all after the cursor,
// in sequence order; the cursor moves to the last.
func (s *Sub) Next(ctx context.Context) (*Batch, error) {
	for {
		// Catch up from the log up to the position at which the hub's
		// batches started coming (a resuming client, or after lagging).
		if joinAt := s.joinAt.Load(); s.cursor < joinAt {
			evs, err := readAfter(ctx, s.hub.env.DB.Client, s.cursor, joinAt, s.hub.b.opt.PageSize)
			if err != nil {
				return nil, err
			}
			if len(evs) > 0 {
				b := newBatch(evs)
				s.cursor = b.Last
				return b, nil
			}
			s.cursor = joinAt // nothing numbered in between (cannot happen; be safe)
		}
		select {
		case b := <-s.in:
			s.pending.Add(-int64(len(b.Events)))
			if out := s.after(b); out != nil {
				return out, nil
			}
		case <-s.lagged:
			// The hub skipped us: drain what it did hand over, then rejoin
			// at its position and read the gap from the log.
			for drained := false; !drained; {
				select {
				case b := <-s.in:
					s.pending.Add(-int64(len(b.Events)))
					if out := s.after(b); out != nil {
						// Hand this out first; the lag is handled next time.
						s.rejoin()
						return out, nil
					}
				default:
					drained = true
				}
			}
			s.rejoin()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.hub.b.closing:
			return nil, ErrShutdown
		}
	}
}

// rejoin takes the hub's batches again from its current position; the gap
// since the cursor is read from the log by Next.
func (s *Sub) rejoin() {
	s.hub.mu.Lock()
	s.joinAt.Store(s.hub.pos)
	s.lagging = false
	s.hub.mu.Unlock()
	// A stale lag signal would only cause a harmless extra rejoin.
}

// after returns the part of b after the cursor (nil if none) and moves the
// cursor.
func (s *Sub) after(b *Batch) *Batch {
	if b.Last <= s.cursor {
		return nil
	}
	for i, e := range b.Events {
		if e.Sequence != nil && int64(*e.Sequence) > s.cursor {
			s.cursor = b.Last
			if i == 0 {
				return b
			}
			// A private batch: the shared memo keys would not match its events.
			return newBatch(b.Events[i:])
		}
	}
	return nil
}

// Close unregisters the subscriber.
func (s *Sub) Close() {
	if s.closed.Swap(true) {
		return
	}
	s.hub.remove(s)
	if s.release != nil {
		s.release()
	}
}
