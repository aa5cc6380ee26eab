// Package webhooks delivers each environment's events to the webhook
// endpoints registered in it, signed per Standard Webhooks 1.0.
//
// The design in one paragraph: a hook on the events' insertion (ent's, or the
// event log's insert listener where it writes events with its own SQL) writes one
// delivery row per matching endpoint in the same transaction as the event (a
// change that rolls back sends nothing; a committed one has its deliveries on
// disk); it keeps the enabled endpoints in memory, under a stamp that every
// endpoint change rewrites and that the event's own numbering statement
// reads (endpointCache). A dispatcher per environment claims due deliveries
// — on PostgreSQL with SELECT … FOR UPDATE SKIP LOCKED, so several instances
// share the work — by pushing their next_attempt_at one lease ahead, sends
// them, and records the result: delivered, rescheduled with back-off and
// jitter, or failed (which may disable the endpoint). A process killed mid-attempt leaves the
// delivery due again when its lease ends: at least once. The commit wakes the
// local dispatcher; other instances are woken by the event log's
// notification (PostgreSQL NOTIFY) and poll in case one is lost.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"go.opentelemetry.io/otel/trace"

	"logistics/ent"
	"logistics/ent/hook"
	"logistics/ent/webhookdelivery"
	"logistics/ent/webhookendpoint"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

// DefaultSchedule is the wait before each retry after a failed attempt:
// Standard Webhooks' example schedule, about three days in all (ten attempts).
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Options configure delivery.
type Options struct {
	AllowPrivate  bool            // deliver to loopback, private and link-local addresses (tests, local development)
	Schedule      []time.Duration // waits before the retries (default DefaultSchedule)
	Timeout       time.Duration   // per attempt (default 15s)
	Workers       int             // attempts in flight per environment; 0: this instance sends nothing (Run returns at once)
	Poll          time.Duration   // how often to look for work other instances committed (default 1s)
	SecretGrace   time.Duration   // how long a rotated-out secret keeps signing (default 24h)
	Now           func() time.Time
	Jitter        func(time.Duration) time.Duration // default: ±20 %
	ResponseBytes int                               // bytes of a response body kept (default 1024, the most)
	// Tracer makes a span per attempt, a child of the span that recorded
	// the event (its stored traceparent), and sends that span as the
	// attempt's traceparent header. nil: no spans, no header.
	Tracer trace.Tracer
}

// Manager manages endpoints and sends deliveries for every environment.
type Manager struct {
	opts   Options
	log    *slog.Logger
	client *http.Client

	mu       sync.Mutex
	resolver resolver                      // resolves endpoints' names (tests replace it)
	wakes    map[*ent.Client]chan struct{} // one per environment's base client
	// pendings: this instance committed deliveries since the dispatcher
	// last looked (one per environment's base client).
	pendings map[*ent.Client]*atomic.Bool

	attempts, delivered atomic.Int64 // by this instance, since it started
}

// Counts returns the attempts this instance made and how many of them were
// delivered (2xx), since it started.
func (m *Manager) Counts() (attempts, delivered int64) { return m.attempts.Load(), m.delivered.Load() }

// Pending counts env's pending deliveries (due now or waiting for a
// retry), for /metrics; (status, next_attempt_at) is indexed.
func (m *Manager) Pending(ctx context.Context, env *environment.Env) (int, error) {
	return env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(ctx)
}

// OldestPending is when env's oldest pending delivery was created, or the
// zero time when none is pending, for /metrics.
func (m *Manager) OldestPending(ctx context.Context, env *environment.Env) (time.Time, error) {
	d, err := env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
		Order(webhookdelivery.ByCreatedAt()).Select(webhookdelivery.FieldCreatedAt).First(ctx)
	if ent.IsNotFound(err) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return d.CreatedAt, nil
}

// queueStmt reads the queue's depth and its oldest delivery's creation in
// one statement: the oldest pending row, with the count of every pending
// row beside it.
var queueStmt = "SELECT " + webhookdelivery.FieldCreatedAt + ", COUNT(*) OVER () FROM " + webhookdelivery.Table +
	" WHERE " + webhookdelivery.FieldStatus + " = '" + string(webhookdelivery.StatusPending) + "' ORDER BY " + webhookdelivery.FieldCreatedAt + " LIMIT 1"

// Queue returns env's pending deliveries (due now or waiting for a retry)
// and when the oldest of them was created (zero when none is pending), for
// /metrics: Pending and OldestPending in one statement.
func (m *Manager) Queue(ctx context.Context, env *environment.Env) (depth int, oldest time.Time, err error) {
	var rows entsql.Rows
	if err := env.DB.Client.Driver().Query(ctx, queueStmt, []any{}, &rows); err != nil {
		return 0, time.Time{}, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&oldest, &depth); err != nil {
			return 0, time.Time{}, err
		}
	}
	return depth, oldest.UTC(), rows.Err()
}

// New returns a Manager.
func New(opts Options, log *slog.Logger) *Manager {
	if len(opts.Schedule) == 0 {
		opts.Schedule = DefaultSchedule
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.SecretGrace <= 0 {
		opts.SecretGrace = 24 * time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Jitter == nil {
		opts.Jitter = func(d time.Duration) time.Duration {
			return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
		}
	}
	if opts.ResponseBytes <= 0 || opts.ResponseBytes > 1024 {
		opts.ResponseBytes = 1024
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts, log: log, resolver: net.DefaultResolver,
		wakes: map[*ent.Client]chan struct{}{}, pendings: map[*ent.Client]*atomic.Bool{}}
	m.client = m.newHTTPClient()
	return m
}

// Options returns the effective options.
func (m *Manager) Options() Options { return m.opts }

func (m *Manager) now() time.Time { return m.opts.Now().UTC() }

// lease is how long a claimed delivery stays invisible to other claimers:
// longer than an attempt can take, so only a dead process's claim expires.
func (m *Manager) lease() time.Duration { return 2*m.opts.Timeout + 5*time.Second }

// pending returns the environment's flag of deliveries committed here.
func (m *Manager) pending(env *environment.Env) *atomic.Bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pendings[env.DB.Client]
	if !ok {
		p = new(atomic.Bool)
		m.pendings[env.DB.Client] = p
	}
	return p
}

// wake returns the environment's wake-up channel.
func (m *Manager) wake(env *environment.Env) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.wakes[env.DB.Client]
	if !ok {
		c = make(chan struct{}, 1)
		m.wakes[env.DB.Client] = c
	}
	return c
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Register installs the fan-out on the environment: an ent hook on Event
// creation for events inserted through ent (ent shares a client's hooks with
// the transactions it opens, so the service's transactions and the GraphQL
// mutation transactions both run it), and an insert listener on its event
// log for the events the log inserts with its own SQL (SQLite, and
// PostgreSQL while the sequencer runs: eventlog.OnInsert). Both run fanOutEvents in the event's
// transaction.
func (m *Manager) Register(env *environment.Env) {
	wake, pending := m.wake(env), m.pending(env)
	cache := new(endpointCache)
	// fan takes the events' client, and whether they were written in a
	// transaction, as functions: an ent mutation makes a new client (17
	// allocations) and a new Tx each time it is asked for one, and most
	// events meet a held set of endpoints that wants none of them.
	fan := func(ctx context.Context, client func() *ent.Client, inTx func() bool, events []eventlog.Inserted) error {
		eps, err := cache.endpoints(ctx, client)
		var n int
		if err == nil && len(eps) > 0 {
			n, err = m.fanOut(ctx, client(), eps, events)
		}
		if err != nil {
			return fmt.Errorf("webhooks: record deliveries of %s: %w", events[0].ID, err)
		}
		if n > 0 {
			if inTx() {
				// Events are written while their transaction commits
				// (eventlog), too late for a commit hook of our own: the
				// flag tells the dispatcher, which the event log wakes
				// once the commit is done, that this instance has work.
				pending.Store(true)
			} else {
				notify(wake) // written outside a transaction: committed
			}
		}
		return nil
	}
	env.DB.Client.Event.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.EventFunc(func(ctx context.Context, mu *ent.EventMutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, mu)
			if err != nil {
				return v, err
			}
			id, _ := mu.ID()
			typ, _ := mu.GetType()
			subject, _ := mu.SubjectID()
			var c *ent.Client // built once, if asked for
			client := func() *ent.Client {
				if c == nil {
					c = mu.Client()
				}
				return c
			}
			inTx := func() bool { _, err := mu.Tx(); return err == nil }
			if err := fan(ctx, client, inTx, []eventlog.Inserted{{ID: id, Type: typ, SubjectID: subject}}); err != nil {
				return nil, err
			}
			return v, nil
		})
	}, ent.OpCreate))
	if env.Events != nil {
		env.Events.OnInsert(func(ctx context.Context, c *ent.Client, events []eventlog.Inserted) error {
			return fan(ctx, func() *ent.Client { return c }, func() bool { return true }, events)
		})
	}
}

// endpointCache holds an environment's enabled endpoints as of an
// endpoints' stamp (eventlog/stamp.go): the stamp's row gets a new random
// value in the transaction of every endpoint change, and the statement that
// numbers a transaction's events reads it, so the fan-out of those events
// knows without a statement of its own whether the set it holds is current.
// An allocation records one event per changed row, and every write of the
// API records one: the query was a statement of every event-writing
// transaction (7 of an allocation's 53 before it was read once per
// transaction), on SQLite inside the write lock.
//
// Why a set kept in this process is exact on any number of instances:
//
//   - A stamp s seen by a transaction T names the state of the endpoints
//     that T's snapshot shows: the change that wrote s, and no later one
//     (every later change writes another value, under the row's lock, in
//     its own transaction; a change and its stamp become visible together).
//   - The set kept under s was read on a miss by a transaction that had
//     just seen s, in a later statement. Under READ COMMITTED (PostgreSQL)
//     that statement may see changes committed in between, so the set is
//     that of s or newer, never older: a change committed before s was
//     written is in it.
//   - T is served the set kept under s only if it saw s itself. The set may
//     then hold a change committed after T read s — a change concurrent
//     with T's commit, which T could as well have seen or missed. Every
//     change committed before T read its stamp (before its fan-out) is in
//     the set, because T then reads that change's stamp or a later one.
//   - A transaction that changes endpoints and records events (the
//     dispatcher disabling one) sees its own uncommitted stamp and may keep
//     its own view under it; if it rolls back, that random value is never
//     seen again.
//
// Events written outside a transaction, or without a stamp (a database not
// yet migrated), read the endpoints each time.
type endpointCache struct {
	mu    sync.Mutex
	held  bool
	stamp int64
	set   []endpoint
}

// endpoint is an enabled endpoint as the fan-out needs it: its event types
// and its compiled filters (nil: none).
type endpoint struct {
	ep      *ent.WebhookEndpoint
	filters *filter.EventFilterSet
}

// endpoints returns the enabled endpoints for an event being inserted
// through c, whose transaction's stamp is in ctx.
func (ec *endpointCache) endpoints(ctx context.Context, client func() *ent.Client) ([]endpoint, error) {
	stamp, ok := eventlog.EndpointsStamp(ctx)
	if !ok {
		return enabledEndpoints(ctx, client())
	}
	ec.mu.Lock()
	held, eps := ec.held && ec.stamp == stamp, ec.set
	ec.mu.Unlock()
	if held {
		return eps, nil
	}
	eps, err := enabledEndpoints(ctx, client())
	if err != nil {
		return nil, err
	}
	ec.mu.Lock()
	ec.held, ec.stamp, ec.set = true, stamp, eps
	ec.mu.Unlock()
	return eps, nil
}

// enabledEndpoints reads the endpoints that are not disabled, through c,
// and compiles their filters. A stored filter that no longer compiles (a
// field since removed from the schema) filters nothing: the endpoint gets
// every event of that type rather than none.
func enabledEndpoints(ctx context.Context, c *ent.Client) ([]endpoint, error) {
	eps, err := c.WebhookEndpoint.Query().Where(webhookendpoint.Disabled(false)).
		Select(webhookendpoint.FieldID, webhookendpoint.FieldEventTypes, webhookendpoint.FieldFilters).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]endpoint, len(eps))
	for i, ep := range eps {
		out[i].ep = ep
		if len(ep.Filters) > 0 {
			out[i].filters, _ = filter.ParseEventFilters(filter.EventFilters(ep.Filters), "filters")
		}
	}
	return out, nil
}

// objects maps each event type of the catalog to its Object ("Order"), the
// type of resource an endpoint's filter selects.
var objects = func() map[string]string {
	m := make(map[string]string, len(eventlog.Catalog))
	for _, t := range eventlog.Catalog {
		m[t.Name] = t.Object
	}
	return m
}()

// fanOut writes one delivery per event and endpoint of eps that wants the
// event's type, through c (the events' transaction), in statements of at
// most deliveryChunk rows, and returns how many are pending (to be sent).
// An endpoint with a filter for the event's resource type gets a pending
// delivery only if the resource, as this transaction leaves it, matches
// the filter, and a skipped one (never sent, counted in its statistics)
// otherwise: one statement per distinct filter and transaction, the same
// query a list with that where: runs, restricted to the events' subjects
// (filter.Match; docs/design/0028-event-filters-query-in-the-transaction.md).
func (m *Manager) fanOut(ctx context.Context, c *ent.Client, eps []endpoint, events []eventlog.Inserted) (int, error) {
	if len(eps) == 0 {
		return 0, nil
	}
	type pair struct {
		e, ep int
		f     filter.EventMatcher // nil: no filter, always sent
	}
	var pairs []pair
	asked := map[string][]resourceid.ID{} // by filter key: the subjects to check
	matchers := map[string]filter.EventMatcher{}
	for i, e := range events {
		for j, ep := range eps {
			if !wants(ep.ep.EventTypes, e.Type) {
				continue
			}
			p := pair{e: i, ep: j}
			if ep.filters != nil {
				if f := ep.filters.For(objects[e.Type]); f != nil {
					p.f = f
					asked[f.Key()] = append(asked[f.Key()], resourceid.ID(e.SubjectID))
					matchers[f.Key()] = f
				}
			}
			pairs = append(pairs, p)
		}
	}
	matched := make(map[string]map[resourceid.ID]bool, len(asked))
	for key, ids := range asked {
		got, err := matchers[key].Matching(ctx, c, ids)
		if err != nil {
			return 0, fmt.Errorf("evaluate the filters: %w", err)
		}
		matched[key] = got
	}
	now := m.now()
	bulk := make([]*ent.WebhookDeliveryCreate, 0, len(pairs))
	sent := 0
	for _, p := range pairs {
		e, ep := events[p.e], eps[p.ep].ep
		d := c.WebhookDelivery.Create().SetEndpointID(ep.ID).SetEventID(string(e.ID)).
			SetEventType(e.Type).SetNextAttemptAt(now).SetCreatedAt(now)
		if p.f != nil && !matched[p.f.Key()][resourceid.ID(e.SubjectID)] {
			d.SetStatus(webhookdelivery.StatusSkipped)
		} else {
			sent++
		}
		bulk = append(bulk, d)
	}
	for lo := 0; lo < len(bulk); lo += deliveryChunk {
		if err := c.WebhookDelivery.CreateBulk(bulk[lo:min(lo+deliveryChunk, len(bulk))]...).Exec(ctx); err != nil {
			return 0, err
		}
	}
	return sent, nil
}

// deliveryChunk is how many deliveries one INSERT writes at most (under
// PostgreSQL's 65,535 parameters).
const deliveryChunk = 1000

// wants reports whether an endpoint with the type filter receives typ:
// an empty filter or "*" takes everything, "order.*" a whole family.
func wants(filter []string, typ string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, f := range filter {
		if f == "*" || f == typ {
			return true
		}
		if family, ok := strings.CutSuffix(f, "*"); ok && strings.HasSuffix(family, ".") && strings.HasPrefix(typ, family) {
			return true
		}
	}
	return false
}

// Run sends the environments' deliveries until ctx ends. With Workers 0 it
// returns at once (an instance that only serves the API).
func (m *Manager) Run(ctx context.Context, envs []*environment.Env) {
	if m.opts.Workers <= 0 {
		return
	}
	var wg sync.WaitGroup
	for _, env := range envs {
		wg.Go(func() { m.runEnv(ctx, env) })
	}
	wg.Wait()
}

// remoteWake is the least time between two claims woken by other
// instances' commits.
const remoteWake = 50 * time.Millisecond

func (m *Manager) runEnv(ctx context.Context, env *environment.Env) {
	wake := m.wake(env)
	// Only this loop fills sem, so the free slots it counts stay free until
	// it uses them: a claimed delivery is sent at once, well inside its lease.
	sem := make(chan struct{}, m.opts.Workers)
	var inflight sync.WaitGroup
	defer inflight.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	// The event log wakes the loop after every commit: this instance's
	// (deliveries committed here set pending: claimed at once) and, on
	// PostgreSQL, other instances' too (NOTIFY: claims for those are spaced
	// by remoteWake, since most commits carry no delivery for anyone). On
	// SQLite, the only instance, a commit without a delivery claims nothing.
	// The channel is taken before each claim, so a commit during it still
	// wakes the loop.
	pending := m.pending(env)
	changed := func() <-chan struct{} {
		if env.Events == nil {
			return nil
		}
		return env.Events.Changed()
	}
	logged := changed()
	var lastRemote time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-logged:
			if !pending.Swap(false) {
				if env.DB.Dialect != dialect.Postgres {
					logged = changed()
					continue
				}
				if d := remoteWake - time.Since(lastRemote); d > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(d):
					}
				}
				lastRemote = time.Now()
			}
		case <-timer.C:
		}
		logged = changed()
		for ctx.Err() == nil {
			free := cap(sem) - len(sem)
			if free == 0 {
				break // a finishing attempt wakes the loop
			}
			claimed, err := m.claim(ctx, env, free)
			if err != nil {
				if ctx.Err() == nil {
					m.log.Warn("webhooks: claim failed", "environment", env.Name, "err", err)
				}
				break
			}
			for _, d := range claimed {
				sem <- struct{}{}
				inflight.Go(func() {
					defer func() { <-sem; notify(wake) }()
					m.attempt(context.WithoutCancel(ctx), env, d)
				})
			}
			if len(claimed) < free {
				break
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(m.opts.Poll)
	}
}

// RunOnce claims and sends every delivery due now in env, one batch after
// another, and returns when they are recorded (tests drive the clock with it).
func (m *Manager) RunOnce(ctx context.Context, env *environment.Env) (int, error) {
	n := 0
	for {
		claimed, err := m.claim(ctx, env, 100)
		if err != nil {
			return n, err
		}
		var wg sync.WaitGroup
		for _, d := range claimed {
			wg.Go(func() { m.attempt(ctx, env, d) })
		}
		wg.Wait()
		n += len(claimed)
		if len(claimed) < 100 {
			return n, nil
		}
	}
}

var errDisabled = errors.New("endpoint disabled")
