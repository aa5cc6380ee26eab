package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/webhookdelivery"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/service"
	"logistics/internal/webhooks"
	"logistics/standardwebhooks"
)

// receiver is a real local HTTP server that checks every webhook's
// signature and counts what it gets by webhook-id.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	secrets  []string       // accepted secrets
	got      map[string]int // webhook-id → times received
	bodies   map[string]map[string]any
	sigs     []string // webhook-signature headers, in order
	badSig   int
	requests int
	// answer, if set, picks the status of the nth request (from 1).
	answer    func(n int) int
	delay     time.Duration
	tolerance time.Duration // of the signature's timestamp (default 5 minutes)
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: map[string]int{}, bodies: map[string]map[string]any{}, tolerance: 5 * time.Minute}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	r.mu.Lock()
	r.requests++
	n := r.requests
	secrets := append([]string(nil), r.secrets...)
	answer := r.answer
	r.sigs = append(r.sigs, req.Header.Get(standardwebhooks.HeaderSignature))
	r.mu.Unlock()
	ok := false
	for _, s := range secrets {
		if standardwebhooks.Verify(s, req.Header, body, time.Now(), r.tolerance) == nil {
			ok = true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.badSig++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	status := http.StatusOK
	if answer != nil {
		status = answer(n)
	}
	if status >= 200 && status < 300 {
		id := req.Header.Get(standardwebhooks.HeaderID)
		r.got[id]++
		var v map[string]any
		_ = json.Unmarshal(body, &v)
		r.bodies[id] = v
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "thanks from the receiver")
}

func (r *receiver) accept(secret string) {
	r.mu.Lock()
	r.secrets = append(r.secrets, secret)
	r.mu.Unlock()
}

func (r *receiver) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[id]
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func allowPrivate(c *app.Config) {
	c.WebhookAllowPrivate = true
	c.WebhookPoll = 100 * time.Millisecond
	c.WebhookTimeout = 2 * time.Second
}

// createEndpoint registers url through REST and returns the answer.
func createEndpoint(t *testing.T, srv *apptest.Server, url string, types ...string) webhooks.EndpointJSON {
	t.Helper()
	body := map[string]any{"url": url, "description": "test receiver"}
	if len(types) > 0 {
		body["event_types"] = types
	}
	resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", body, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create endpoint: %d %s", resp.StatusCode, resp.Body)
	}
	var ep webhooks.EndpointJSON
	resp.JSON(t, &ep)
	if !strings.HasPrefix(ep.Secret, "whsec_") {
		t.Fatalf("create answered no secret: %s", resp.Body)
	}
	return ep
}

func createHub(t *testing.T, srv *apptest.Server, code string) string {
	t.Helper()
	resp := srv.Do(t, "POST", srv.URL+"/v1/hubs", map[string]any{"code": code, "name": "Hub " + code, "address": map[string]any{"country": "NL"}}, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create hub: %d %s", resp.StatusCode, resp.Body)
	}
	var h struct{ ID string }
	resp.JSON(t, &h)
	return h.ID
}

// eventOf returns the id of the event of type typ about subject.
func eventOf(t *testing.T, srv *apptest.Server, typ, subject string) string {
	t.Helper()
	ctx := srv.Ctx(environment.Production)
	ev, err := srv.Env(environment.Production).DB.Client.Event.Query().Where(event.Type(typ), event.SubjectID(subject)).Only(ctx)
	if err != nil {
		t.Fatalf("event %s of %s: %v", typ, subject, err)
	}
	return string(ev.ID)
}

func deliveries(t *testing.T, srv *apptest.Server, ep resourceid.ID, query string) []webhooks.DeliveryJSON {
	t.Helper()
	resp := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+string(ep)+"/deliveries"+query, nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("deliveries: %d %s", resp.StatusCode, resp.Body)
	}
	var out struct{ Data []webhooks.DeliveryJSON }
	resp.JSON(t, &out)
	return out.Data
}

// TestDeliverySignedAndLogged: a committed change reaches the receiver
// signed per Standard Webhooks, and the delivery log shows status, latency
// and the first bytes of the answer; the secret is never readable again.
func TestDeliverySignedAndLogged(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	rc := newReceiver(t)
	ep := createEndpoint(t, srv, rc.URL+"/hooks")
	rc.accept(ep.Secret)
	hubID := createHub(t, srv, "WH1")
	evID := eventOf(t, srv, "hub.created", hubID)
	waitFor(t, 10*time.Second, "the hub.created webhook", func() bool { return rc.count(evID) == 1 })
	rc.mu.Lock()
	body := rc.bodies[evID]
	rc.mu.Unlock()
	if body["type"] != "hub.created" || body["subject_id"] != hubID || body["id"] != evID {
		t.Errorf("body = %v", body)
	}
	var ds []webhooks.DeliveryJSON
	waitFor(t, 5*time.Second, "the delivery recorded", func() bool {
		ds = deliveries(t, srv, ep.ID, "?status=succeeded")
		return len(ds) == 1
	})
	d := ds[0]
	if d.EventID != evID || d.Attempts != 1 || d.LastStatusCode != 200 || d.LastResponse != "thanks from the receiver" || d.DeliveredAt == nil {
		t.Errorf("delivery = %+v", d)
	}
	for _, u := range []string{"/v1/webhook-endpoints/" + string(ep.ID), "/v1/webhook-endpoints"} {
		resp := srv.Do(t, "GET", srv.URL+u, nil, nil)
		if strings.Contains(string(resp.Body), ep.Secret) || strings.Contains(string(resp.Body), `"secret"`) {
			t.Errorf("GET %s shows the secret: %s", u, resp.Body)
		}
	}
	if rc.badSig != 0 {
		t.Errorf("%d requests with a bad signature", rc.badSig)
	}
	resp, err := srv.Client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `logistics_webhook_attempts_total{outcome="delivered"} 1`) {
		t.Errorf("/metrics does not count the delivery:\n%s", metrics)
	}
}

// TestRollbackSendsNothing: the deliveries are written by the same
// transaction as the event, through the hook on transactional clients —
// service transactions and GraphQL mutation transactions alike.
func TestRollbackSendsNothing(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { allowPrivate(c); c.WebhookWorkers = 0 }})
	rc := newReceiver(t)
	ep := createEndpoint(t, srv, rc.URL)
	ctx := srv.Ctx(environment.Production)
	c := srv.Env(environment.Production).DB.Client
	count := func() int {
		n, err := c.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	boom := errors.New("boom")
	err := service.WithTx(ctx, func(ctx context.Context) error {
		if _, err := srv.App.Service.CreateHub(ctx, ent.CreateHubInput{Code: "RB1", Name: "rolled back", Country: "NL"}); err != nil {
			return err
		}
		// Events (and so their deliveries) are written at the commit
		// (eventlog.Begin), which never comes.
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithTx = %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after rollback: %d deliveries, want 0", n)
	}
	if _, err := srv.App.Service.CreateHub(ctx, ent.CreateHubInput{Code: "OK1", Name: "committed", Country: "NL"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("after commit: %d deliveries, want 1", n)
	}
	// A GraphQL mutation runs in entgql's transaction: the hook is there too.
	var out map[string]any
	srv.MustGraphQL(t, environment.Production, `mutation { createHub(input: {code: "GQ1", name: "from graphql", country: "NL"}) { id } }`, nil, &out)
	if n := count(); n != 2 {
		t.Fatalf("after a GraphQL mutation: %d deliveries, want 2", n)
	}
}

// TestRetryBackoffWithClock drives the dispatcher with a hand-moved clock:
// each failure reschedules after the next wait of the schedule (jitter
// pinned), success ends it, and a delivery that fails its whole schedule
// fails and disables the endpoint, with an event saying so.
func TestRetryBackoffWithClock(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	schedule := []time.Duration{time.Minute, 10 * time.Minute, time.Hour}
	srv := apptest.New(t, apptest.Options{
		Config: func(c *app.Config) {
			allowPrivate(c)
			c.WebhookWorkers = 0 // the test runs the dispatcher itself
			c.WebhookSchedule = "1m,10m,1h"
		},
		Now:    clock,
		Jitter: func(d time.Duration) time.Duration { return d },
	})
	rc := newReceiver(t)
	rc.tolerance = 10 * 365 * 24 * time.Hour // the test's clock is years ahead
	rc.answer = func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	}
	ep := createEndpoint(t, srv, rc.URL)
	rc.accept(ep.Secret)
	env := srv.Env(environment.Production)
	ctx := srv.Ctx(environment.Production)
	mgr := srv.App.Webhooks
	hubID := createHub(t, srv, "BO1")
	evID := eventOf(t, srv, "hub.created", hubID)
	run := func(want int) {
		t.Helper()
		n, err := mgr.RunOnce(ctx, env)
		if err != nil || n != want {
			t.Fatalf("RunOnce = %d, %v; want %d", n, err, want)
		}
	}
	delivery := func() *ent.WebhookDelivery {
		d, err := env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.EventID(evID)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	run(1) // attempt 1: 500
	d := delivery()
	if d.Status != webhookdelivery.StatusPending || d.Attempts != 1 || !d.NextAttemptAt.Equal(clock().Add(time.Minute)) || d.LastStatusCode != 500 {
		t.Fatalf("after attempt 1: %+v", d)
	}
	advance(59 * time.Second)
	run(0) // not due yet
	advance(time.Second)
	run(1) // attempt 2: 500
	if d = delivery(); d.Attempts != 2 || !d.NextAttemptAt.Equal(clock().Add(10*time.Minute)) {
		t.Fatalf("after attempt 2: %+v", d)
	}
	advance(10 * time.Minute)
	run(1) // attempt 3: 204
	if d = delivery(); d.Status != webhookdelivery.StatusSucceeded || d.Attempts != 3 || d.LastStatusCode != 204 {
		t.Fatalf("after attempt 3: %+v", d)
	}
	if rc.count(evID) != 1 {
		t.Fatalf("received %d times", rc.count(evID))
	}

	// Now the endpoint fails for good: 1 + 3 attempts, then disabled.
	rc.mu.Lock()
	rc.answer = func(int) int { return http.StatusServiceUnavailable }
	rc.mu.Unlock()
	hub2 := createHub(t, srv, "BO2")
	ev2 := eventOf(t, srv, "hub.created", hub2)
	for i, wait := range append([]time.Duration{0}, schedule...) {
		advance(wait)
		run(1)
		d, _ := env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.EventID(ev2)).Only(ctx)
		if want := i + 1; d.Attempts != want {
			t.Fatalf("attempt %d: %+v", want, d)
		}
	}
	d2, _ := env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.EventID(ev2)).Only(ctx)
	if d2.Status != webhookdelivery.StatusFailed {
		t.Fatalf("after the whole schedule: %+v", d2)
	}
	got := getEndpoint(t, srv, ep.ID)
	if got.Enabled || !strings.Contains(got.DisabledReason, "every attempt failed") {
		t.Fatalf("endpoint after the schedule: %+v", got)
	}
	if n, _ := env.DB.Client.Event.Query().Where(event.Type("webhook_endpoint.disabled"), event.SubjectID(string(ep.ID))).Count(ctx); n != 1 {
		t.Fatalf("%d webhook_endpoint.disabled events, want 1", n)
	}
}

func getEndpoint(t *testing.T, srv *apptest.Server, id resourceid.ID) webhooks.EndpointJSON {
	t.Helper()
	resp := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+string(id), nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("get endpoint: %d %s", resp.StatusCode, resp.Body)
	}
	var ep webhooks.EndpointJSON
	resp.JSON(t, &ep)
	return ep
}

// TestGoneDisablesEndpoint: a 410 answer disables the endpoint at once and
// later events are not queued for it; enabling it again works.
func TestGoneDisablesEndpoint(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	rc := newReceiver(t)
	rc.answer = func(int) int { return http.StatusGone }
	ep := createEndpoint(t, srv, rc.URL)
	rc.accept(ep.Secret)
	createHub(t, srv, "GN1")
	waitFor(t, 10*time.Second, "the endpoint disabled", func() bool { return !getEndpoint(t, srv, ep.ID).Enabled })
	got := getEndpoint(t, srv, ep.ID)
	if !strings.Contains(got.DisabledReason, "410") {
		t.Errorf("reason = %q", got.DisabledReason)
	}
	ds := deliveries(t, srv, ep.ID, "")
	if len(ds) != 1 || ds[0].Status != "failed" || ds[0].LastStatusCode != 410 || ds[0].Attempts != 1 {
		t.Fatalf("deliveries = %+v", ds)
	}
	createHub(t, srv, "GN2")
	if ds := deliveries(t, srv, ep.ID, ""); len(ds) != 1 {
		t.Fatalf("a disabled endpoint got a new delivery: %+v", ds)
	}
	resp := srv.Do(t, "PATCH", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID), map[string]any{"enabled": true}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("enable: %d %s", resp.StatusCode, resp.Body)
	}
	if got := getEndpoint(t, srv, ep.ID); !got.Enabled || got.DisabledReason != "" {
		t.Fatalf("after enabling: %+v", got)
	}
}

// pollAnHourAway starts a service whose dispatcher polls once an hour, so
// only a wake-up delivers, with an endpoint on a local receiver that
// accepts its deliveries, once the dispatcher's first look (at start) is
// over.
func pollAnHourAway(t *testing.T) (*apptest.Server, *receiver) {
	t.Helper()
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		allowPrivate(c)
		c.WebhookPoll = time.Hour
	}})
	rc := newReceiver(t)
	ep := createEndpoint(t, srv, rc.URL+"/hooks")
	rc.accept(ep.Secret)
	time.Sleep(200 * time.Millisecond)
	return srv, rc
}

// TestCommitWakesTheDispatcher: a commit that writes deliveries wakes this
// instance's dispatcher itself; the poll is only for what others commit
// (set to an hour here, so only the wake-up can deliver). Events are
// written while their transaction commits, too late for a commit hook of
// the webhook hook's own: without the event log's wake-up, deliveries
// waited for the poll (p50 ≈ 100 ms at 200 events/s, 1 s when idle).
func TestCommitWakesTheDispatcher(t *testing.T) {
	srv, rc := pollAnHourAway(t)
	for i := range 3 {
		hubID := createHub(t, srv, fmt.Sprintf("WK%d", i))
		evID := eventOf(t, srv, "hub.created", hubID)
		waitFor(t, 10*time.Second, "the hub.created webhook without a poll", func() bool { return rc.count(evID) == 1 })
	}
}

// TestEventOutsideATransactionWakesTheDispatcher: an event written outside
// a transaction (no commit will follow to wake the dispatcher) wakes it at
// once, with the poll an hour away. The fan-out tells the two apart (inTx);
// were every event taken for one written in a transaction, this one would
// wait for the poll (mutation-checked on both databases). The other way
// round no test can tell: an event of a transaction taken for a committed
// one wakes the dispatcher early, and on SQLite its claim waits for the
// writer and then finds the delivery (on PostgreSQL a transaction's
// events reach the fan-out through the event log's insert, never as
// outside one).
func TestEventOutsideATransactionWakesTheDispatcher(t *testing.T) {
	srv, rc := pollAnHourAway(t)
	ctx := srv.Ctx(environment.Production)
	ev, err := srv.Env(environment.Production).DB.Client.Event.Create().
		SetType("hub.created").SetSubjectID("hub_outside").SetData(map[string]any{"object": map[string]any{"id": "hub_outside"}}).
		SetSequence(1 << 30). // numbered: on PostgreSQL an event is sent once it has its number
		Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the webhook of an event written outside a transaction, without a poll", func() bool { return rc.count(string(ev.ID)) == 1 })
}
