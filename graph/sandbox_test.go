package graph_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/sandbox"
)

// receiver is a webhook endpoint that keeps every event it receives.
type receiver struct {
	mu     sync.Mutex
	events []map[string]any
	fail   int // answer 500 to this many requests first
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.fail > 0 {
			rc.fail--
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var ev map[string]any
		if err := json.Unmarshal(b, &ev); err == nil {
			rc.events = append(rc.events, ev)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// wait returns the events received once cond holds of them (15 s at most).
func (rc *receiver) wait(t *testing.T, what string, cond func([]map[string]any) bool) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		rc.mu.Lock()
		evs := slices.Clone(rc.events)
		rc.mu.Unlock()
		if cond(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook receiver: %s not within 15 s; got %d events", what, len(evs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// register makes rc a webhook endpoint of env for the given event types.
func (rc *receiver) register(t *testing.T, srv *apptest.Server, env environment.Name, types ...string) {
	t.Helper()
	srv.Create(t, env, "/v1/webhook-endpoints", map[string]any{"url": rc.srv.URL, "event_types": types})
}

func clockDo(t *testing.T, srv *apptest.Server, env environment.Name, path string, body any, want int) sandbox.State {
	t.Helper()
	method := http.MethodPost
	if path == "" {
		method = http.MethodGet
	}
	r := srv.Do(t, method, srv.Base(env)+"/v1/sandbox/clock"+path, body, nil)
	if r.StatusCode != want {
		t.Fatalf("%s /v1/sandbox/clock%s: %d, want %d: %s", method, path, r.StatusCode, want, r.Body)
	}
	var s sandbox.State
	if want == http.StatusOK {
		r.JSON(t, &s)
	}
	return s
}

// shipREST takes a new order with one line through to shipped, over REST,
// with the tracking number.
func shipREST(t *testing.T, srv *apptest.Server, f *fixture, hub, part, number string) string {
	t.Helper()
	return shipIn(t, srv, environment.Sandbox, f, hub, part, number)
}

func shipIn(t *testing.T, srv *apptest.Server, env environment.Name, f *fixture, hub, part, number string) string {
	t.Helper()
	o := f.order(hub, part, "1")
	for _, tr := range []map[string]any{
		{"transition": "submit"}, {"transition": "allocate"}, {"transition": "start_picking"},
		{"transition": "ship", "tracking_number": number, "carrier": "SimPost"},
	} {
		r := srv.Do(t, http.MethodPost, srv.Base(env)+"/v1/orders/"+o+"/transitions", tr, nil)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%v: %d %s", tr, r.StatusCode, r.Body)
		}
	}
	return o
}

type entryJSON struct {
	ID             string `json:"id"`
	TrackingNumber string `json:"tracking_number"`
	Status         string `json:"status"`
	Hub            *struct {
		ID string `json:"id"`
	} `json:"hub"`
	Location   string    `json:"location"`
	OccurredAt time.Time `json:"occurred_at"`
}

// TestSandboxSimulatedCarriers ships one order per test tracking number in
// the sandbox, with the clock frozen, advances it, and reads each number's
// whole history through REST, GraphQL, a webhook receiver and a
// subscription: the entries of its outcome's table, at the ship's time plus
// their offsets, delivered orders moved, occurred_at in simulated time and
// created_at real. Another number schedules nothing.
func TestSandboxSimulatedCarriers(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.WebhookAllowPrivate = true
		c.WebhookPoll = 50 * time.Millisecond
	}})
	env := environment.Sandbox
	f := newFixture(t, srv, env)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("SKU-SIM", "Parcel")
	f.item(part, hub, "100")
	rc := newReceiver(t)
	rc.register(t, srv, env, "tracking_entry.created", "order.transitioned")
	sub := dialSSE(t, srv, env, http.Header{}, `subscription { trackingEntryAdded { type trackingEntry { id trackingNumber status occurredAt } } }`, nil)
	time.Sleep(300 * time.Millisecond) // the subscription is live

	frozen := clockDo(t, srv, env, "/freeze", nil, http.StatusOK)
	if !frozen.Frozen {
		t.Fatalf("freeze: %+v", frozen)
	}
	t0 := frozen.Now
	orders := map[string]string{}
	for _, out := range sandbox.Outcomes {
		orders[out.Number] = shipREST(t, srv, f, hub, part, out.Number)
	}
	plain := shipREST(t, srv, f, hub, part, "1Z999AA10123456784")

	// 20 hours: only the first scans of each schedule fall due.
	mid := clockDo(t, srv, env, "/advance", map[string]any{"by": "20h"}, http.StatusOK)
	if !mid.Now.Equal(t0.Add(20 * time.Hour)) {
		t.Fatalf("advance 20h: now %s, want %s", mid.Now, t0.Add(20*time.Hour))
	}
	for _, out := range sandbox.Outcomes {
		want := 1
		for _, s := range out.Scans {
			if s.At <= 20*time.Hour {
				want++
			}
		}
		if got := len(restEntries(t, srv, orders[out.Number])); got != want {
			t.Errorf("%s after 20h: %d entries, want %d", out.Number, got, want)
		}
	}
	// Through GraphQL this time: the rest of every schedule.
	var adv struct {
		AdvanceSandboxClock struct {
			Now    time.Time
			Frozen bool
		}
	}
	srv.MustGraphQL(t, env, `mutation { advanceSandboxClock(by: "80h") { now frozen } }`, nil, &adv)
	if !adv.AdvanceSandboxClock.Now.Equal(t0.Add(100*time.Hour)) || !adv.AdvanceSandboxClock.Frozen {
		t.Fatalf("advance 80h: %+v", adv)
	}

	total := 0
	for _, out := range sandbox.Outcomes {
		o := orders[out.Number]
		total += 1 + len(out.Scans)
		// REST: the entries, in time order, as the table says.
		got := restEntries(t, srv, o)
		if len(got) != 1+len(out.Scans) || got[0].Status != "label_created" || !got[0].OccurredAt.Equal(t0) {
			t.Fatalf("%s: entries %+v", out.Number, got)
		}
		for i, s := range out.Scans {
			e := got[i+1]
			if e.Status != string(s.Status) || !e.OccurredAt.Equal(t0.Add(s.At)) || e.Location != s.Location ||
				(e.Hub != nil) != s.AtHub || e.TrackingNumber != out.Number {
				t.Errorf("%s entry %d: %+v, want %+v at %s", out.Number, i, e, s, t0.Add(s.At))
			}
		}
		delivered := out.Scans[len(out.Scans)-1].Status == "delivered"
		// GraphQL: the order's status and its entries.
		var q struct {
			Node struct {
				Status          string
				TrackingEntries struct{ TotalCount int }
			}
		}
		srv.MustGraphQL(t, env, `query($id: ID!) { node(id: $id) { ... on Order { status trackingEntries { totalCount } } } }`, map[string]any{"id": o}, &q)
		wantStatus := "shipped"
		if delivered {
			wantStatus = "delivered"
		}
		if q.Node.Status != wantStatus || q.Node.TrackingEntries.TotalCount != 1+len(out.Scans) {
			t.Errorf("%s: GraphQL %+v, want %s with %d entries", out.Number, q.Node, wantStatus, 1+len(out.Scans))
		}
		// The deliver transition happened at the delivered entry's time.
		if delivered {
			var evs struct {
				Data []struct {
					OccurredAt time.Time `json:"occurred_at"`
				}
			}
			srv.Do(t, http.MethodGet, srv.SandboxURL+"/v1/orders/"+o+"/events?to_state=delivered", nil, nil).JSON(t, &evs)
			if len(evs.Data) != 1 || !evs.Data[0].OccurredAt.Equal(t0.Add(out.Scans[len(out.Scans)-1].At)) {
				t.Errorf("%s: deliver transition %+v", out.Number, evs)
			}
		}
		if n, err := sandbox.Pending(srv.Ctx(env), resourceid.ID(o)); err != nil || n != 0 {
			t.Errorf("%s: %d entries still scheduled (%v)", out.Number, n, err)
		}
	}
	if got := restEntries(t, srv, plain); len(got) != 1 {
		t.Errorf("an ordinary tracking number: %d entries, want the label only", len(got))
	}
	total++ // the ordinary number's label

	// The webhook receiver: every entry, each event in simulated time.
	evs := rc.wait(t, "every tracking entry", func(evs []map[string]any) bool {
		n := 0
		for _, e := range evs {
			if e["type"] == "tracking_entry.created" {
				n++
			}
		}
		return n >= total
	})
	// Deliveries run in parallel: put them in the log's order.
	slices.SortFunc(evs, func(a, b map[string]any) int { return int(a["sequence"].(float64) - b["sequence"].(float64)) })
	byNumber := map[string][]string{}
	real := time.Now()
	for _, e := range evs {
		obj, _ := dig(e, "data", "object").(map[string]any)
		occurred, _ := time.Parse(time.RFC3339Nano, e["occurred_at"].(string))
		created, _ := time.Parse(time.RFC3339Nano, e["created_at"].(string))
		if created.After(real) || real.Sub(created) > time.Minute {
			t.Errorf("%s: created_at %s is not the real time", e["type"], created)
		}
		switch e["type"] {
		case "tracking_entry.created":
			at, _ := time.Parse(time.RFC3339Nano, obj["occurred_at"].(string))
			if !occurred.Equal(at) {
				t.Errorf("event occurred_at %s, entry occurred_at %s", occurred, at)
			}
			byNumber[obj["tracking_number"].(string)] = append(byNumber[obj["tracking_number"].(string)], obj["status"].(string))
		case "order.transitioned":
			if occurred.Before(t0) {
				t.Errorf("order.transitioned occurred_at %s, before the clock's %s", occurred, t0)
			}
		}
	}
	for _, out := range sandbox.Outcomes {
		want := []string{"label_created"}
		for _, s := range out.Scans {
			want = append(want, string(s.Status))
		}
		if !slices.Equal(byNumber[out.Number], want) {
			t.Errorf("%s: webhooks %v, want %v", out.Number, byNumber[out.Number], want)
		}
	}
	delivers := 0
	for _, e := range evs {
		if e["type"] == "order.transitioned" && dig(e, "data", "transition", "name") == "deliver" {
			delivers++
		}
	}
	if delivers != 3 {
		t.Errorf("%d deliver transitions sent, want 3 (on time, late, exception then delivered)", delivers)
	}

	// The subscription: every entry, in order.
	subs := map[string][]string{}
	for range total {
		_, m := sub.next()
		te, _ := dig(m, "trackingEntryAdded", "trackingEntry").(map[string]any)
		subs[te["trackingNumber"].(string)] = append(subs[te["trackingNumber"].(string)], te["status"].(string))
	}
	for _, out := range sandbox.Outcomes {
		if !slices.Equal(subs[out.Number], byNumber[out.Number]) {
			t.Errorf("%s: subscription %v, webhooks %v", out.Number, subs[out.Number], byNumber[out.Number])
		}
	}
}

func restEntries(t *testing.T, srv *apptest.Server, order string) []entryJSON {
	t.Helper()
	var page struct{ Data []entryJSON }
	r := srv.Do(t, http.MethodGet, srv.SandboxURL+"/v1/tracking-entries?order_id="+order+"&sort=occurred_at&limit=100", nil, nil)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("tracking entries: %d %s", r.StatusCode, r.Body)
	}
	r.JSON(t, &page)
	return page.Data
}

// TestSandboxClock: the clock's calls through REST and GraphQL, the 4xx of
// every bad input, the scope, and production's 404 for every door.
func TestSandboxClock(t *testing.T) {
	srv := apptest.New(t)
	sb, prod := environment.Sandbox, environment.Production
	start := clockDo(t, srv, sb, "", nil, http.StatusOK)
	if start.Frozen || start.AheadSeconds < -1 || start.AheadSeconds > 1 {
		t.Fatalf("a fresh clock: %+v", start)
	}
	fz := clockDo(t, srv, sb, "/freeze", nil, http.StatusOK)
	time.Sleep(20 * time.Millisecond)
	if again := clockDo(t, srv, sb, "", nil, http.StatusOK); !again.Frozen || !again.Now.Equal(fz.Now) {
		t.Fatalf("frozen clock moved: %+v then %+v", fz, again)
	}
	adv := clockDo(t, srv, sb, "/advance", map[string]any{"by": "36h"}, http.StatusOK)
	if !adv.Now.Equal(fz.Now.Add(36 * time.Hour)) {
		t.Fatalf("advance 36h: %+v from %+v", adv, fz)
	}
	to := adv.Now.Add(24 * time.Hour)
	set := clockDo(t, srv, sb, "/set", map[string]any{"to": to}, http.StatusOK)
	if !set.Now.Equal(to) {
		t.Fatalf("set: %+v, want %s", set, to)
	}
	for _, c := range []struct {
		path string
		body any
		want int
		in   string
	}{
		{"/set", map[string]any{"to": adv.Now}, 400, `"field":"to"`}, // back
		{"/set", map[string]any{"to": to.Add(400 * 24 * time.Hour)}, 400, `"field":"to"`},
		{"/set", map[string]any{}, 422, `"field":"to"`},
		{"/set", `{"to": "yesterday"}`, 400, ""},
		{"/advance", map[string]any{"by": "-1h"}, 400, `"field":"by"`},
		{"/advance", map[string]any{"by": "0s"}, 400, `"field":"by"`},
		{"/advance", map[string]any{"by": "soon"}, 400, `"field":"by"`},
		{"/advance", map[string]any{"by": strings.Repeat("1", 40) + "h"}, 400, `"field":"by"`},
		{"/advance", map[string]any{"by": "9000h"}, 400, `"field":"by"`},
		{"/advance", map[string]any{}, 422, `"field":"by"`},
		{"/advance", `{"by": 5}`, 400, ""},
	} {
		h := http.Header{}
		if _, ok := c.body.(string); ok {
			h.Set("Content-Type", "application/json")
		}
		r := srv.Do(t, http.MethodPost, srv.SandboxURL+"/v1/sandbox/clock"+c.path, c.body, h)
		if r.StatusCode != c.want || !strings.Contains(string(r.Body), c.in) {
			t.Errorf("POST %s %v: %d %s, want %d with %s", c.path, c.body, r.StatusCode, r.Body, c.want, c.in)
		}
	}
	if now := clockDo(t, srv, sb, "", nil, http.StatusOK); !now.Now.Equal(to) {
		t.Fatalf("refused calls moved the clock: %+v", now)
	}
	res := clockDo(t, srv, sb, "/resume", nil, http.StatusOK)
	if res.Frozen || res.AheadSeconds < 59*3600 || res.Now.Before(to) {
		t.Fatalf("resume: %+v", res)
	}

	// GraphQL: the same clock.
	var q struct {
		SandboxClock struct {
			Now          time.Time
			Frozen       bool
			AheadSeconds float64
		}
	}
	srv.MustGraphQL(t, sb, `{ sandboxClock { now frozen aheadSeconds realTime } }`, nil, &q)
	if q.SandboxClock.Frozen || q.SandboxClock.Now.Before(to) {
		t.Fatalf("GraphQL clock: %+v", q)
	}
	for _, m := range []string{`mutation { freezeSandboxClock { frozen } }`, `mutation { resumeSandboxClock { frozen } }`} {
		if r := srv.GraphQL(t, sb, m, nil); len(r.Errors) > 0 {
			t.Errorf("%s: %v", m, r.Errors)
		}
	}
	for m, code := range map[string]string{
		`mutation { advanceSandboxClock(by: "soon") { now } }`:             "BAD_USER_INPUT",
		`mutation { setSandboxClock(to: "2020-01-01T00:00:00Z") { now } }`: "BAD_USER_INPUT",
	} {
		if r := srv.GraphQL(t, sb, m, nil); len(r.Errors) != 1 || r.Errors[0].Code() != code {
			t.Errorf("%s: %+v, want %s", m, r.Errors, code)
		}
	}

	// The scope: a sandbox key without sandbox:write is refused.
	reader, _ := keyWith(t, srv, sb, "read")
	if r := srv.Do(t, http.MethodPost, srv.SandboxURL+"/v1/sandbox/clock/freeze", nil, apptest.Bearer(reader)); r.StatusCode != http.StatusForbidden {
		t.Errorf("freeze without sandbox:write: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.GraphQLWith(t, sb, `{ sandboxClock { now } }`, nil, apptest.Bearer(reader)); len(r.Errors) != 1 || r.Errors[0].Code() != "FORBIDDEN" {
		t.Errorf("GraphQL without sandbox:write: %+v", r.Errors)
	}

	// Production has no door: 404 with every key, before any scope check.
	prodReader, _ := keyWith(t, srv, prod, "read")
	for _, h := range []http.Header{nil, apptest.Bearer(prodReader)} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "", nil}, {"POST", "/freeze", nil}, {"POST", "/resume", nil},
			{"POST", "/advance", map[string]any{"by": "1h"}}, {"POST", "/set", map[string]any{"to": time.Now().Add(time.Hour)}},
		} {
			if r := srv.Do(t, c.method, srv.URL+"/v1/sandbox/clock"+c.path, c.body, h); r.StatusCode != http.StatusNotFound {
				t.Errorf("production %s %s: %d %s", c.method, c.path, r.StatusCode, r.Body)
			}
		}
		for _, doc := range []string{
			`{ sandboxClock { now } }`, `mutation { freezeSandboxClock { now } }`, `mutation { resumeSandboxClock { now } }`,
			`mutation { advanceSandboxClock(by: "1h") { now } }`, `mutation { setSandboxClock(to: "2099-01-01T00:00:00Z") { now } }`,
		} {
			if r := srv.GraphQLWith(t, prod, doc, nil, h); len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" {
				t.Errorf("production %s: %+v", doc, r.Errors)
			}
		}
	}
	// Production's events carry occurred_at equal to created_at, and a
	// test tracking number schedules nothing there.
	f := newFixture(t, srv, prod)
	hub := f.hub("PRD1", "Utrecht", "NL")
	part := f.part("SKU-P", "Parcel")
	f.item(part, hub, "5")
	o := shipIn(t, srv, prod, f, hub, part, "SIM-DELIVERED")
	if n, err := sandbox.Pending(srv.Ctx(prod), resourceid.ID(o)); err != nil || n != 0 {
		t.Errorf("production scheduled %d simulated entries (%v)", n, err)
	}
	var page struct {
		Data []struct {
			CreatedAt  string `json:"created_at"`
			OccurredAt string `json:"occurred_at"`
		}
	}
	srv.Do(t, http.MethodGet, srv.URL+"/v1/events?after=0", nil, nil).JSON(t, &page)
	if len(page.Data) == 0 {
		t.Fatal("no production events")
	}
	for _, e := range page.Data {
		if e.OccurredAt != e.CreatedAt {
			t.Errorf("production event: occurred_at %s, created_at %s", e.OccurredAt, e.CreatedAt)
		}
	}
}

// TestSandboxClockAdvanceSendsWaitingRetries: a webhook retry waiting an
// hour of real time is sent at once when the clock is advanced past it,
// and not before.
func TestSandboxClockAdvanceSendsWaitingRetries(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.WebhookAllowPrivate = true
		c.WebhookPoll = 50 * time.Millisecond
		c.WebhookSchedule = "1h,1h"
	}})
	env := environment.Sandbox
	rc := newReceiver(t)
	rc.fail = 1
	rc.register(t, srv, env, "hub.created")
	clockDo(t, srv, env, "/freeze", nil, http.StatusOK)
	f := newFixture(t, srv, env)
	f.hub("RTM1", "Rotterdam", "NL")
	// The first attempt fails and its retry waits an hour.
	deadline := time.Now().Add(15 * time.Second)
	for {
		rc.mu.Lock()
		failed := rc.fail == 0
		rc.mu.Unlock()
		if failed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no first attempt within 15 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	rc.mu.Lock()
	early := len(rc.events)
	rc.mu.Unlock()
	if early != 0 {
		t.Fatalf("the retry was sent before its time: %d events", early)
	}
	clockDo(t, srv, env, "/advance", map[string]any{"by": "30m"}, http.StatusOK)
	time.Sleep(500 * time.Millisecond)
	rc.mu.Lock()
	early = len(rc.events)
	rc.mu.Unlock()
	if early != 0 {
		t.Fatalf("advancing 30m sent a retry due in an hour: %d events", early)
	}
	clockDo(t, srv, env, "/advance", map[string]any{"by": "2h"}, http.StatusOK)
	rc.wait(t, "the retry", func(evs []map[string]any) bool { return len(evs) == 1 && evs[0]["type"] == "hub.created" })
}

// TestSandboxClockTwoInstances: two server processes on one PostgreSQL
// database tell one time, moves made on both at once add up (the clock's
// row lock), and an order shipped on one is delivered by the entries the
// other writes when it advances the clock.
func TestSandboxClockTwoInstances(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("two server processes share one database on PostgreSQL (LOGISTICS_TEST_POSTGRES)")
	}
	srv := apptest.New(t)
	child := apptest.StartChild(t, srv, apptest.BuildBinary(t), apptest.ChildOptions{})
	env := environment.Sandbox
	other := child.URL + "/sandbox"
	frozen := clockDo(t, srv, env, "/freeze", nil, http.StatusOK)
	move := func(base string, by string) sandbox.State {
		r := srv.Do(t, http.MethodPost, base+"/v1/sandbox/clock/advance", map[string]any{"by": by}, apptest.Bearer(srv.Keys[env]))
		if r.StatusCode != http.StatusOK {
			t.Errorf("advance on %s: %d %s", base, r.StatusCode, r.Body)
		}
		var s sandbox.State
		r.JSON(t, &s)
		return s
	}
	if s := move(other, "10h"); !s.Now.Equal(frozen.Now.Add(10 * time.Hour)) {
		t.Fatalf("the other instance: %+v, want %s", s, frozen.Now.Add(10*time.Hour))
	}
	if s := clockDo(t, srv, env, "", nil, http.StatusOK); !s.Frozen || !s.Now.Equal(frozen.Now.Add(10*time.Hour)) {
		t.Fatalf("this instance reads %+v after the other advanced", s)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		base := srv.SandboxURL
		if i%2 == 1 {
			base = other
		}
		wg.Go(func() { move(base, "1h") })
	}
	wg.Wait()
	if s := clockDo(t, srv, env, "", nil, http.StatusOK); !s.Now.Equal(frozen.Now.Add(18 * time.Hour)) {
		t.Fatalf("eight moves of 1h on two instances: %+v, want %s", s, frozen.Now.Add(18*time.Hour))
	}

	f := newFixture(t, srv, env)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("SKU-2I", "Parcel")
	f.item(part, hub, "3")
	o := shipREST(t, srv, f, hub, part, "SIM-DELIVERED")
	move(other, "31h")
	got := restEntries(t, srv, o)
	if len(got) != 5 || got[4].Status != "delivered" {
		t.Fatalf("entries written by the other instance: %+v", got)
	}
	var order struct{ Status string }
	srv.Do(t, http.MethodGet, srv.SandboxURL+"/v1/orders/"+o, nil, nil).JSON(t, &order)
	if order.Status != "delivered" {
		t.Errorf("order %s, want delivered", order.Status)
	}
}
