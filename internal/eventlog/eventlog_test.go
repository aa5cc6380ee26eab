package eventlog_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/hub"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/migrations"
	"logistics/internal/resourceid"
	"logistics/internal/service"
	"logistics/internal/view"
)

var jsonCT = http.Header{"Content-Type": {"application/json"}}

type eventsPage struct {
	Data      []eventlog.Event `json:"data"`
	HasMore   bool             `json:"has_more"`
	NextAfter *int64           `json:"next_after"`
}

// lastSequence is the highest sequence in the production log.
func lastSequence(t *testing.T, s *apptest.Server) int64 {
	t.Helper()
	ctx := s.Ctx(environment.Production)
	e, err := ent.FromContext(ctx).Event.Query().Where(event.SequenceNotNil()).Order(ent.Desc(event.FieldSequence)).First(ctx)
	if ent.IsNotFound(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return int64(*e.Sequence)
}

// get sends an authenticated GET without testing.T (usable in goroutines).
func get(s *apptest.Server, url string) (int, []byte, error) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+s.Keys[environment.Production])
	resp, err := s.Client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func send(s *apptest.Server, method, url, body string) (int, []byte, error) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Keys[environment.Production])
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestCursorNeverSkips: writers on two instances (on PostgreSQL; one on
// SQLite) commit concurrently while one reader pages GET /v1/events?after=
// from both instances in turn. The events read are exactly the events
// written, in strictly increasing sequence, with no number missing.
// Checked against the design it guards against: with numbers taken at insert
// (a PostgreSQL sequence read in Record), this test failed on PostgreSQL
// ("read 124 events, 128 written").
func TestCursorNeverSkips(t *testing.T) {
	a := apptest.New(t)
	servers := []*apptest.Server{a}
	if apptest.Postgres() {
		servers = append(servers, a.Twin(t))
	}
	start := lastSequence(t, a)
	const writersPerServer, hubsPerWriter = 4, 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		writeErr []string
	)
	for si, s := range servers {
		for w := range writersPerServer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range hubsPerWriter {
					code := fmt.Sprintf("S%dW%dH%d", si, w, i)
					if w%2 == 1 {
						// Through the service, with the transaction kept
						// open a while after its events are recorded: with
						// numbers taken at insert, these commits would land
						// after later numbers and a reader would skip them.
						if err := slowWrite(s, code); err != nil {
							mu.Lock()
							writeErr = append(writeErr, fmt.Sprintf("%s: %v", code, err))
							mu.Unlock()
						}
						continue
					}
					st, b, err := send(s, "POST", s.URL+"/v1/hubs", `{"code":"`+code+`","name":"x","address":{"country":"NL"}}`)
					if err == nil && st == http.StatusCreated {
						var h struct{ ID string }
						_ = json.Unmarshal(b, &h)
						st, b, err = send(s, "PATCH", s.URL+"/v1/hubs/"+h.ID, `{"name":"y"}`)
						if err == nil && st == http.StatusOK {
							continue
						}
					}
					mu.Lock()
					writeErr = append(writeErr, fmt.Sprintf("%s: %d %v %s", code, st, err, b))
					mu.Unlock()
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	var read []eventlog.Event
	after := start
	finished := false
	for i := 0; ; i++ {
		select {
		case <-done:
			finished = true
		default:
		}
		s := servers[i%len(servers)]
		st, b, err := get(s, fmt.Sprintf("%s/v1/events?after=%d&limit=7", s.URL, after))
		if err != nil || st != http.StatusOK {
			t.Fatalf("read: %d %v %s", st, err, b)
		}
		var p eventsPage
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		read = append(read, p.Data...)
		after = *p.NextAfter
		if finished && len(p.Data) == 0 {
			break // every writer was done before this empty read began
		}
	}
	if len(writeErr) > 0 {
		t.Fatalf("%d writes failed, e.g. %s", len(writeErr), writeErr[0])
	}

	ctx := a.Ctx(environment.Production)
	written, err := ent.FromContext(ctx).Event.Query().Where(event.SequenceGT(int(start))).Order(ent.Asc(event.FieldSequence)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := 2 * writersPerServer * hubsPerWriter * len(servers)
	if len(written) != want {
		t.Fatalf("%d events written, want %d", len(written), want)
	}
	if len(read) != len(written) {
		t.Fatalf("read %d events, %d written", len(read), len(written))
	}
	for i, e := range read {
		if e.ID != written[i].ID || e.Sequence != int64(*written[i].Sequence) {
			t.Fatalf("event %d read: %s #%d; written: %s #%d", i, e.ID, e.Sequence, written[i].ID, *written[i].Sequence)
		}
		if e.Sequence != start+int64(i)+1 {
			t.Fatalf("event %d has sequence %d, want %d (no number missing)", i, e.Sequence, start+int64(i)+1)
		}
		if e.Environment != "production" {
			t.Fatalf("environment %q", e.Environment)
		}
	}
	// Causal order: a hub's update was written after its creation had
	// committed, so its number is larger (on PostgreSQL the sequencer numbers
	// in pending_order, taken from one database sequence).
	created := map[string]int64{}
	for _, e := range read {
		switch e.Type {
		case "hub.created":
			created[e.SubjectID] = e.Sequence
		case "hub.updated":
			if c, ok := created[e.SubjectID]; !ok || c > e.Sequence {
				t.Fatalf("hub %s: updated as #%d, created as #%d", e.SubjectID, e.Sequence, c)
			}
		}
	}
}

// slowWrite creates and renames a hub in one transaction that stays open
// for a few milliseconds after recording its two events.
func slowWrite(s *apptest.Server, code string) error {
	ctx := s.Ctx(environment.Production)
	svc := s.App.Service
	return service.WithTx(ctx, func(ctx context.Context) error {
		h, err := svc.CreateHub(ctx, ent.CreateHubInput{Code: code, Name: "x", Country: "NL"})
		if err != nil {
			return err
		}
		if _, err := svc.UpdateHub(ctx, h.ID, ent.UpdateHubInput{Name: ptr("y")}, nil); err != nil {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
		return nil
	})
}

func ptr[T any](v T) *T { return &v }

// TestWakeUpAcrossInstances: a commit on one instance wakes the waiters of
// the other through PostgreSQL LISTEN/NOTIFY (the Log itself never polls,
// so only the notification can close its channel).
func TestWakeUpAcrossInstances(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("needs PostgreSQL: on SQLite one instance owns the database and wakes its waiters in process (TestWakeUpInProcess)")
	}
	a := apptest.New(t)
	b := a.Twin(t)
	log := b.Env(environment.Production).Events
	select {
	case <-log.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("the twin's listener did not subscribe within 10s")
	}
	woken := log.Changed()
	st, body, err := send(a, "POST", a.URL+"/v1/hubs", `{"code":"WAKE1","name":"x","address":{"country":"NL"}}`)
	if err != nil || st != http.StatusCreated {
		t.Fatalf("%d %v %s", st, err, body)
	}
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("a commit on instance A did not wake instance B within 10s")
	}
	if got, want := log.Last(), lastSequence(t, a); got != want {
		t.Errorf("instance B heard of sequence %d, want %d", got, want)
	}
}

// TestWakeUpInProcess: a commit wakes the same instance's waiters at once;
// a rolled-back change wakes nobody and writes nothing.
func TestWakeUpInProcess(t *testing.T) {
	s := apptest.New(t)
	log := s.Env(environment.Production).Events
	before := lastSequence(t, s)
	woken := log.Changed()
	if r := s.Do(t, "POST", s.URL+"/v1/hubs", `{"code":"BAD CODE","name":"x"}`, jsonCT); r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid hub: %d %s", r.StatusCode, r.Body)
	}
	if got := lastSequence(t, s); got != before {
		t.Fatalf("a refused change wrote events: sequence %d → %d", before, got)
	}
	if r := s.Do(t, "POST", s.URL+"/v1/hubs", `{"code":"OK1","name":"x","address":{"country":"NL"}}`, jsonCT); r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	select {
	case <-woken:
	case <-time.After(5 * time.Second):
		t.Fatal("the commit did not wake the waiter")
	}
	if log.Last() != before+1 {
		t.Errorf("Last() = %d, want %d", log.Last(), before+1)
	}
}

// TestLongPoll: GET /v1/events?after=<last>&wait= returns as soon as an
// event commits — on the other instance on PostgreSQL — and at the end of
// the wait with an empty page otherwise; its parameters are checked.
func TestLongPoll(t *testing.T) {
	a := apptest.New(t)
	reader := a
	if apptest.Postgres() {
		reader = a.Twin(t)
	}
	last := lastSequence(t, a)
	type result struct {
		st   int
		body []byte
		took time.Duration
		err  error
	}
	res := make(chan result, 1)
	go func() {
		t0 := time.Now()
		st, b, err := get(reader, fmt.Sprintf("%s/v1/events?after=%d&wait=20s&types[]=hub.created", reader.URL, last))
		res <- result{st, b, time.Since(t0), err}
	}()
	time.Sleep(300 * time.Millisecond)
	// Not of the requested type: the poll keeps waiting.
	if r := a.Do(t, "POST", a.URL+"/v1/parts", `{"sku":"LP1","part_name":"x"}`, jsonCT); r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	time.Sleep(300 * time.Millisecond)
	if r := a.Do(t, "POST", a.URL+"/v1/hubs", `{"code":"LP1","name":"x","address":{"country":"NL"}}`, jsonCT); r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	r := <-res
	if r.err != nil || r.st != http.StatusOK {
		t.Fatalf("long poll: %d %v %s", r.st, r.err, r.body)
	}
	var p eventsPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Data) != 1 || p.Data[0].Type != "hub.created" || *p.NextAfter != p.Data[0].Sequence {
		t.Fatalf("long poll returned %s", r.body)
	}
	if r.took > 15*time.Second {
		t.Errorf("long poll took %s: it should return when the event commits", r.took)
	}

	// Nothing new: an empty page after the wait, resuming where it was.
	t0 := time.Now()
	resp := a.Do(t, "GET", fmt.Sprintf("%s/v1/events?after=%d&wait=1s", a.URL, p.Data[0].Sequence), nil, nil)
	var empty eventsPage
	resp.JSON(t, &empty)
	if resp.StatusCode != 200 || len(empty.Data) != 0 || *empty.NextAfter != p.Data[0].Sequence || time.Since(t0) < 900*time.Millisecond {
		t.Errorf("empty long poll: %d after %s: %s", resp.StatusCode, time.Since(t0), resp.Body)
	}

	for _, tc := range []struct{ query, field string }{
		{"after=0&wait=31s", "wait"},
		{"after=0&wait=forever", "wait"},
		{"wait=5s", "wait"},
		{"after=-1", "after"},
		{"after=x", "after"},
		{"after=0&sort=-created_at", "after"},
	} {
		resp := a.Do(t, "GET", a.URL+"/v1/events?"+tc.query, nil, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(resp.Body), `"field":"`+tc.field+`"`) {
			t.Errorf("%s: %d %s", tc.query, resp.StatusCode, resp.Body)
		}
	}
}

// TestEventPayloads: an event's object is the resource's REST
// representation after the change, previous_attributes the changed fields'
// former values; stock effects of a transition are item.updated and
// order_line.updated events with their cause; a GraphQL mutation's events
// are numbered at its commit too, and a failed one writes none.
func TestEventPayloads(t *testing.T) {
	s := apptest.New(t)
	start := lastSequence(t, s)
	post := func(path, body string) map[string]any { return postJSON(t, s, path, body) }
	hub := post("/v1/hubs", `{"code":"AMS1","name":"Amsterdam","address":{"country":"NL"}}`)
	hubID := hub["id"].(string)
	if r := s.Do(t, "PATCH", s.URL+"/v1/hubs/"+hubID, `{"name":"Amsterdam One"}`, jsonCT); r.StatusCode != 200 {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	post("/v1/parts", `{"sku":"BOLT","part_name":"Bolt"}`)
	item := post("/v1/items", `{"sku":"BOLT","hub":"AMS1","quantity":10,"lot":"L-7","expires_at":"2027-03-01T12:00:00.5Z"}`)
	order := post("/v1/orders", `{"hub":"AMS1","lines":[{"sku":"BOLT","quantity":3}]}`)
	orderID := order["id"].(string)
	post("/v1/orders/"+orderID+"/transitions", `{"transition":"submit"}`)
	post("/v1/orders/"+orderID+"/transitions", `{"transition":"allocate"}`)

	var p eventsPage
	s.Do(t, "GET", fmt.Sprintf("%s/v1/events?after=%d&limit=100", s.URL, start), nil, nil).JSON(t, &p)
	byType := map[string][]eventlog.Event{}
	var types []string
	for _, e := range p.Data {
		if !eventlog.Known(e.Type) {
			t.Errorf("event type %s is not in the catalog", e.Type)
		}
		byType[e.Type] = append(byType[e.Type], e)
		types = append(types, e.Type)
	}
	wantTypes := []string{"hub.created", "hub.updated", "part.created", "item.created", "order.created",
		"order.transitioned", "item.updated", "order_line.updated", "order.transitioned"}
	if !slices.Equal(types, wantTypes) {
		t.Fatalf("types %v, want %v", types, wantTypes)
	}
	// hub.updated: the object is GET /v1/hubs/{id}; previous_attributes the old name.
	var hubNow map[string]any
	s.Do(t, "GET", s.URL+"/v1/hubs/"+hubID, nil, nil).JSON(t, &hubNow)
	upd := byType["hub.updated"][0]
	if !reflect.DeepEqual(upd.Data.Object, hubNow) {
		t.Errorf("hub.updated object %v\nGET /v1/hubs/{id} %v", upd.Data.Object, hubNow)
	}
	if pa := upd.Data.PreviousAttributes; pa["name"] != "Amsterdam" || pa["revision"] != float64(1) || pa["code"] != nil {
		t.Errorf("hub.updated previous_attributes %v", pa)
	}
	if upd.SubjectID != hubID || !strings.HasPrefix(upd.Actor, "tok_") {
		t.Errorf("subject %s actor %s", upd.SubjectID, upd.Actor)
	}
	// The allocation: the order moved, the item's stock was reserved, the line allocated.
	tr := byType["order.transitioned"][1]
	if pa := tr.Data.PreviousAttributes; pa["status"] != "open" || tr.Data.Object.(map[string]any)["status"] != "allocated" {
		t.Errorf("order.transitioned: %v / %v", pa, tr.Data.Object)
	}
	var raw map[string]any
	b, _ := json.Marshal(tr.Data)
	_ = json.Unmarshal(b, &raw)
	if tn, _ := raw["transition"].(map[string]any); tn["name"] != "allocate" || tn["effect"] != "reserve" {
		t.Errorf("order.transitioned data.transition %v", raw["transition"])
	}
	it := byType["item.updated"][0]
	var itemNow map[string]any
	s.Do(t, "GET", s.URL+"/v1/items/"+item["id"].(string), nil, nil).JSON(t, &itemNow)
	if !reflect.DeepEqual(it.Data.Object, itemNow) {
		t.Errorf("item.updated object %v\nGET %v", it.Data.Object, itemNow)
	}
	if pa := it.Data.PreviousAttributes; pa["reserved_quantity"] != float64(0) || pa["available_quantity"] != float64(10) || itemNow["reserved_quantity"] != float64(3) {
		t.Errorf("item.updated previous_attributes %v (now %v)", pa, itemNow)
	}
	if c, _ := it.Data.Extra["cause"].(map[string]any); c == nil {
		// Extra is filled from stored rows; check the wire form too.
		b, _ := json.Marshal(it.Data)
		if !strings.Contains(string(b), `"cause":{"effect":"reserve","order_id":"`+orderID+`"}`) {
			t.Errorf("item.updated data %s", b)
		}
	}
	ln := byType["order_line.updated"][0]
	if pa := ln.Data.PreviousAttributes; pa["allocated_quantity"] != float64(0) || pa["revision"] != float64(1) {
		t.Errorf("order_line.updated previous_attributes %v", pa)
	}
	// The line's object is built from the change, not read back: it must
	// still be what GET returns, to the microsecond of updated_at.
	var lineNow map[string]any
	s.Do(t, "GET", s.URL+"/v1/order-lines/"+ln.SubjectID, nil, nil).JSON(t, &lineNow)
	if !reflect.DeepEqual(ln.Data.Object, lineNow) || lineNow["allocated_quantity"] != float64(3) {
		t.Errorf("order_line.updated object %v\nGET %v", ln.Data.Object, lineNow)
	}
	var orderNow map[string]any
	s.Do(t, "GET", s.URL+"/v1/orders/"+orderID, nil, nil).JSON(t, &orderNow)
	if !reflect.DeepEqual(tr.Data.Object, orderNow) {
		t.Errorf("order.transitioned object %v\nGET %v", tr.Data.Object, orderNow)
	}

	// GraphQL: numbered at the mutation's commit; a failed operation writes nothing.
	last := lastSequence(t, s)
	g := s.GraphQL(t, environment.Production, `mutation { createHub(input: {code: "RTM1", name: "R", country: "NL"}) { id } }`, nil)
	if len(g.Errors) > 0 {
		t.Fatalf("createHub: %v", g.Errors)
	}
	if got := lastSequence(t, s); got != last+1 {
		t.Fatalf("GraphQL createHub: sequence %d → %d, want one event", last, got)
	}
	g = s.GraphQL(t, environment.Production, `mutation { a: createHub(input: {code: "RTM2", name: "R", country: "NL"}) { id } b: createHub(input: {code: "RTM1", name: "dup", country: "NL"}) { id } }`, nil)
	if len(g.Errors) == 0 {
		t.Fatal("duplicate hub code accepted")
	}
	if got := lastSequence(t, s); got != last+1 {
		t.Fatalf("a failed GraphQL operation wrote events: sequence %d → %d", last+1, got)
	}
}

// TestMigrateNumbersOldEvents: events written before sequences existed (no
// number) are numbered by the migration after the numbered ones, in
// (created_at, id) order, and new events continue after them.
func TestMigrateNumbersOldEvents(t *testing.T) {
	s := apptest.New(t)
	env := s.Env(environment.Production)
	ctx := s.Ctx(environment.Production)
	c := env.DB.Client
	base := lastSequence(t, s)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	second, err := c.Event.Create().SetType("hub.created").SetSubjectID("hub_x").SetData(map[string]any{"status": "x"}).SetCreatedAt(old.Add(time.Second)).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Event.Create().SetType("hub.created").SetSubjectID("hub_y").SetCreatedAt(old).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Such events are in a database of an earlier release: adopting it
	// runs the first file's data step, which numbers them.
	if err := migrations.EventLogRows(ctx, env.DB.SQL, env.DB.Dialect); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{string(first.ID), string(second.ID)} {
		e := c.Event.GetX(ctx, first.ID)
		if id == string(second.ID) {
			e = c.Event.GetX(ctx, second.ID)
		}
		if e.Sequence == nil || int64(*e.Sequence) != base+int64(i)+1 {
			t.Errorf("old event %d: sequence %v, want %d", i, e.Sequence, base+int64(i)+1)
		}
	}
	if r := s.Do(t, "POST", s.URL+"/v1/hubs", `{"code":"MIG1","name":"x","address":{"country":"NL"}}`, jsonCT); r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	if got := lastSequence(t, s); got != base+3 {
		t.Errorf("the next event got %d, want %d", got, base+3)
	}
	// An old row's fields stay readable beside the (empty) object.
	b, err := eventlog.JSON("production", c.Event.GetX(ctx, second.ID))
	if err != nil || !strings.Contains(string(b), `"data":{"object":{},"status":"x"}`) {
		t.Errorf("old event JSON %s %v", b, err)
	}
}

// TestLargeTransaction: a transaction's events are written in several
// INSERTs past 1,000 and keep consecutive numbers in the order recorded; a
// rolled-back one writes none.
func TestLargeTransaction(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Production)
	base := lastSequence(t, s)
	const n = 2345
	recordInOrder(t, ctx, base, n)
	_ = service.WithTx(ctx, func(ctx context.Context) error {
		_ = eventlog.Record(ctx, eventlog.Change{Type: "hub.updated", SubjectID: "hub_x"})
		return fmt.Errorf("roll back")
	})
	if got := lastSequence(t, s); got != base+n {
		t.Errorf("after a rollback the log ends at %d, want %d", got, base+n)
	}
}

// TestEventsWrittenInOneStatement: a transaction's events cost the same
// statements whatever their number: on PostgreSQL one (the INSERT takes each
// event's pending order from the sequence and reads the endpoints' stamp),
// on SQLite two (the counter with the stamp, the INSERT). They are numbered
// in the order they were recorded.
func TestEventsWrittenInOneStatement(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	ctx := s.Ctx(environment.Production)
	want := 2
	if apptest.Postgres() {
		want = 1
	}
	for round, n := range []int{1, 1, 3} { // the first reads the webhook endpoints (none) too
		base := lastSequence(t, s)
		counter.Reset()
		stmts := recordInOrder(t, ctx, base, n, counter.Statements)
		if round > 0 && len(stmts) != want {
			t.Errorf("%d events: %d statements, want %d:\n%s", n, len(stmts), want, strings.Join(stmts, "\n"))
		}
	}
}

// recordInOrder records n events in one transaction, each with its index
// in its object, and checks that the log holds them right after base,
// numbered consecutively in the order recorded. With statements, it returns
// what statements returned right after the commit.
func recordInOrder(t *testing.T, ctx context.Context, base int64, n int, statements ...func() []string) []string {
	t.Helper()
	err := service.WithTx(ctx, func(ctx context.Context) error {
		for i := range n {
			if err := eventlog.Record(ctx, eventlog.Change{Type: "hub.updated", SubjectID: "hub_x", Object: map[string]any{"i": i}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, f := range statements {
		stmts = f()
	}
	evs, err := eventlog.After(ctx, ent.FromContext(ctx), base, n+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != n {
		t.Fatalf("%d events read, want %d", len(evs), n)
	}
	for i, e := range evs {
		if int64(*e.Sequence) != base+int64(i)+1 || e.Data["object"].(map[string]any)["i"] != float64(i) {
			t.Fatalf("event %d of %d: sequence %d after %d, data %v: not numbered in the order recorded", i, n, *e.Sequence, base, e.Data)
		}
	}
	return stmts
}

// TestInvalidEventWritesNothing: an event that ent's validators refuse (an
// empty type, a subject id or actor too long) fails its transaction, on
// every path that inserts events (PostgreSQL's own INSERT checks the same
// rules), and nothing the transaction wrote stays.
func TestInvalidEventWritesNothing(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Production)
	for name, bad := range map[string]eventlog.Change{
		"empty type":        {Type: "", SubjectID: "hub_x"},
		"long subject":      {Type: "hub.updated", SubjectID: resourceid.ID(strings.Repeat("x", 41))},
		"long actor":        {Type: "hub.updated", SubjectID: "hub_x", Actor: strings.Repeat("a", 121)},
		"long type, no log": {Type: strings.Repeat("t", 65), SubjectID: "hub_x"},
	} {
		ctx := ctx
		if strings.HasSuffix(name, "no log") {
			ctx = eventlog.NewContext(ctx, nil) // PostgreSQL: ent's insert, numbered from the counter
		}
		base := lastSequence(t, s)
		var hubID resourceid.ID
		err := service.WithTx(ctx, func(ctx context.Context) error {
			h, err := ent.FromContext(ctx).Hub.Create().SetCode("INVALID").SetName(name).SetCountry("NL").Save(ctx)
			if err != nil {
				return err
			}
			hubID = h.ID
			if err := eventlog.Record(ctx, eventlog.Change{Type: "hub.created", SubjectID: h.ID}); err != nil {
				return err
			}
			return eventlog.Record(ctx, bad)
		})
		if err == nil {
			t.Errorf("%s: the transaction committed", name)
		}
		if n, err := ent.FromContext(ctx).Hub.Query().Where(hub.ID(hubID)).Count(ctx); err != nil || n != 0 {
			t.Errorf("%s: the hub written before the event stayed (%d, %v)", name, n, err)
		}
		if got := lastSequence(t, s); got != base {
			t.Errorf("%s: the log moved %d → %d", name, base, got)
		}
		if n, err := ent.FromContext(ctx).Event.Query().Where(event.SubjectID(string(hubID))).Count(ctx); err != nil || n != 0 {
			t.Errorf("%s: %d events of the hub stayed (%v)", name, n, err)
		}
	}
}

// TestEndpointsStamp: the statement that numbers (or inserts) a
// transaction's events reads the endpoints' stamp, which the events' hooks
// and the log's insert listeners find in their context; it changes with every committed endpoint change and only then.
// A database from before the stamp's row gets it from the migration.
func TestEndpointsStamp(t *testing.T) {
	s := apptest.New(t)
	env := s.Env(environment.Production)
	ctx := s.Ctx(environment.Production)
	c := env.DB.Client
	// A database of an earlier release without the stamp's row gets it
	// from the data step its adoption runs.
	if _, err := env.DB.SQL.ExecContext(ctx, "DELETE FROM webhook_endpoints_stamp"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.EventLogRows(ctx, env.DB.SQL, env.DB.Dialect); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []int64
	c.Event.Use(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			stamp, ok := eventlog.EndpointsStamp(ctx)
			if !ok {
				t.Error("an event hook found no stamp")
			}
			mu.Lock()
			seen = append(seen, stamp)
			mu.Unlock()
			return next.Mutate(ctx, m)
		})
	})
	// Events the log inserts with its own SQL (PostgreSQL with the
	// sequencer) reach its insert listeners instead of ent's hooks.
	env.Events.OnInsert(func(ctx context.Context, _ *ent.Client, events []eventlog.Inserted) error {
		stamp, ok := eventlog.EndpointsStamp(ctx)
		if !ok {
			t.Error("an insert listener found no stamp")
		}
		mu.Lock()
		for range events {
			seen = append(seen, stamp)
		}
		mu.Unlock()
		return nil
	})
	// stamp writes two events in a transaction, and two more without the
	// environment's Log (on PostgreSQL: numbered from the counter, not by
	// the sequencer), and returns the stamp they all saw.
	stamp := func() int64 {
		t.Helper()
		mu.Lock()
		seen = nil
		mu.Unlock()
		for _, ctx := range []context.Context{ctx, eventlog.NewContext(ctx, nil)} {
			err := service.WithTx(ctx, func(ctx context.Context) error {
				for range 2 {
					if err := eventlog.Record(ctx, eventlog.Change{Type: "hub.updated", SubjectID: "hub_x"}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 4 || seen[1] != seen[0] || seen[2] != seen[0] || seen[3] != seen[0] {
			t.Fatalf("stamps seen by the events: %v", seen)
		}
		return seen[0]
	}
	endpoint := func(commit bool) {
		t.Helper()
		tx, err := c.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.WebhookEndpoint.Create().SetURL("https://example.com/").SetSecret("whsec_x").Save(ctx); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	s1 := stamp()
	if s2 := stamp(); s2 != s1 {
		t.Errorf("no endpoint change, yet the stamp went %d → %d", s1, s2)
	}
	endpoint(false)
	if s2 := stamp(); s2 != s1 {
		t.Errorf("a rolled-back endpoint change moved the stamp %d → %d", s1, s2)
	}
	endpoint(true)
	s2 := stamp()
	if s2 == s1 {
		t.Errorf("an endpoint change left the stamp at %d", s1)
	}
	if err := env.DB.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if s3 := stamp(); s3 != s2 {
		t.Errorf("the migration moved the stamp %d → %d", s2, s3)
	}
}

// TestLineEventsOfEveryEffect: the order_line.updated object that release
// and ship build from their change (not read back) is what GET returns
// right after, with previous_attributes the former quantities and revision.
func TestLineEventsOfEveryEffect(t *testing.T) {
	s := apptest.New(t)
	post := func(path, body string) map[string]any { return postJSON(t, s, path, body) }
	post("/v1/hubs", `{"code":"AMS1","name":"Amsterdam","address":{"country":"NL"}}`)
	post("/v1/parts", `{"sku":"BOLT","part_name":"Bolt"}`)
	post("/v1/items", `{"sku":"BOLT","hub":"AMS1","quantity":10}`)
	for _, tc := range []struct {
		moves  []string
		effect string
		prev   map[string]any // previous_attributes of the last line event
		now    map[string]any // the line afterwards
	}{
		{[]string{"submit", "allocate", "cancel"}, "release",
			map[string]any{"allocated_quantity": float64(3), "revision": float64(2)},
			map[string]any{"allocated_quantity": float64(0), "shipped_quantity": float64(0), "revision": float64(3)}},
		{[]string{"submit", "allocate", "start_picking", "ship"}, "ship",
			map[string]any{"allocated_quantity": float64(3), "shipped_quantity": float64(0), "revision": float64(2)},
			map[string]any{"allocated_quantity": float64(0), "shipped_quantity": float64(3), "revision": float64(3)}},
	} {
		t.Run(tc.effect, func(t *testing.T) {
			order := post("/v1/orders", `{"hub":"AMS1","lines":[{"sku":"BOLT","quantity":3}]}`)
			orderID := order["id"].(string)
			lineID := order["lines"].([]any)[0].(map[string]any)["id"].(string)
			start := lastSequence(t, s)
			for _, m := range tc.moves {
				post("/v1/orders/"+orderID+"/transitions", `{"transition":"`+m+`","tracking_number":"T1","carrier":"DHL"}`)
			}
			var p eventsPage
			s.Do(t, "GET", fmt.Sprintf("%s/v1/events?after=%d&type=order_line.updated&limit=100", s.URL, start), nil, nil).JSON(t, &p)
			if len(p.Data) != 2 {
				t.Fatalf("%d order_line.updated events, want 2 (reserve, %s)", len(p.Data), tc.effect)
			}
			last := p.Data[1]
			var lineNow map[string]any
			s.Do(t, "GET", s.URL+"/v1/order-lines/"+lineID, nil, nil).JSON(t, &lineNow)
			if !reflect.DeepEqual(last.Data.Object, lineNow) {
				t.Errorf("object %v\nGET    %v", last.Data.Object, lineNow)
			}
			for k, v := range tc.now {
				if lineNow[k] != v {
					t.Errorf("line %s = %v, want %v", k, lineNow[k], v)
				}
			}
			if !reflect.DeepEqual(last.Data.PreviousAttributes, tc.prev) {
				t.Errorf("previous_attributes %v, want %v", last.Data.PreviousAttributes, tc.prev)
			}
		})
	}
}

// postJSON sends a JSON body with a POST and returns the answer's object,
// failing the test unless it is a 200 or a 201.
func postJSON(t *testing.T, s *apptest.Server, path, body string) map[string]any {
	t.Helper()
	r := s.Do(t, "POST", s.URL+path, body, jsonCT)
	if r.StatusCode != http.StatusCreated && r.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, r.StatusCode, r.Body)
	}
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// TestOrderCreatedAsRead: order.created is rendered from the rows the
// create wrote (not read back), and must still be exactly what GET
// /v1/orders/{id} answers, as must the create's own answer: lines given out
// of id order, a due time in another zone to the millisecond, ship-to
// fields; a due time finer than a microsecond (read back instead) and an
// order without lines alike.
func TestOrderCreatedAsRead(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	start := lastSequence(t, s)
	post := func(path, body string) map[string]any { return postJSON(t, s, path, body) }
	post("/v1/hubs", `{"code":"AMS1","name":"Amsterdam","address":{"country":"NL"}}`)
	for _, sku := range []string{"P-1", "P-2", "P-3"} {
		post("/v1/parts", `{"sku":"`+sku+`","part_name":"Part `+sku+`"}`)
	}
	created := map[string]map[string]any{}
	for _, body := range []string{
		`{"hub":"AMS1","customer_ref":"C-9","priority":"high","due_at":"2026-12-01T09:30:00.123+02:00",
		  "ship_to":{"name":"A. Smith","line1":"Main St 1","city":"Utrecht","postal_code":"3511","country":"NL"},
		  "lines":[{"sku":"P-3","quantity":1},{"sku":"P-1","quantity":2.5},{"sku":"P-2","quantity":0.001}]}`,
		`{"hub":"AMS1","due_at":"2026-12-01T09:30:00.123456789Z","lines":[{"sku":"P-2","quantity":4}]}`,
		`{"hub":"AMS1"}`,
	} {
		counter.Reset()
		o := post("/v1/orders", body)
		created[o["id"].(string)] = o
		// The fast path reads no order back (the read-back selects the
		// order joined with its hub); the sub-microsecond due time does.
		readBack := 0
		for _, q := range counter.Statements() {
			if strings.HasPrefix(q, "SELECT") && strings.Contains(q, "JOIN") && strings.Contains(q, "due_at") {
				readBack++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[strings.Contains(body, "123456789Z")]; readBack != want {
			t.Errorf("%s: %d statements read the order back, want %d: %q", body, readBack, want, counter.Statements())
		}
	}
	createdAsRead(t, s, start, "order.created", "/v1/orders/", created)
}

// TestTrackingCreatedAsRead: tracking_entry.created is rendered from the
// entry the create wrote (not read back) and must be exactly what GET
// /v1/tracking-entries/{id} answers, as must the create's own answer: with
// a hub (its code read by id), without one, an occurred_at in another zone
// to the millisecond, none (now); an occurred_at finer than a microsecond
// is read back instead.
func TestTrackingCreatedAsRead(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	start := lastSequence(t, s)
	post := func(path, body string) map[string]any { return postJSON(t, s, path, body) }
	post("/v1/hubs", `{"code":"AMS1","name":"Amsterdam","address":{"country":"NL"}}`)
	order := post("/v1/orders", `{"hub":"AMS1"}`)["id"].(string)
	created := map[string]map[string]any{}
	for _, fields := range []string{
		`"hub":"AMS1","location":"Schiphol","description":"Sorted","occurred_at":"2026-12-01T09:30:00.123+02:00"`,
		`"location":"Utrecht"`,
		`"occurred_at":"2026-12-01T09:30:00.123456789Z"`,
	} {
		counter.Reset()
		e := post("/v1/tracking-entries", `{"order_id":"`+order+`","tracking_number":"TN-1","carrier":"DHL","status":"in_transit",`+fields+`}`)
		created[e["id"].(string)] = e
		readBack := 0
		for _, q := range counter.Statements() {
			if strings.HasPrefix(q, "SELECT") && strings.Contains(q, "tracking_entries") && strings.Contains(q, "occurred_at") {
				readBack++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[strings.Contains(fields, "123456789Z")]; readBack != want {
			t.Errorf("%s: %d statements read the entry back, want %d: %q", fields, readBack, want, counter.Statements())
		}
	}
	createdAsRead(t, s, start, "tracking_entry.created", "/v1/tracking-entries/", created)
}

// createdAsRead waits for the typ event of every resource created (id →
// the POST answer) after start, and checks that its object and the POST
// answer are what GET <path><id> answers now.
func createdAsRead(t *testing.T, s *apptest.Server, start int64, typ, path string, created map[string]map[string]any) {
	t.Helper()
	events := map[string]eventlog.Event{}
	for deadline := time.Now().Add(10 * time.Second); len(events) < len(created); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d %s events of %d", len(events), typ, len(created))
		}
		var p eventsPage
		s.Do(t, "GET", fmt.Sprintf("%s/v1/events?after=%d&limit=100&type=%s", s.URL, start, typ), nil, nil).JSON(t, &p)
		for _, e := range p.Data {
			events[e.SubjectID] = e
		}
	}
	for id, answer := range created {
		var now map[string]any
		s.Do(t, "GET", s.URL+path+id, nil, nil).JSON(t, &now)
		if obj := events[id].Data.Object; !reflect.DeepEqual(obj, now) {
			t.Errorf("%s object %v\nGET %v", typ, obj, now)
		}
		if !reflect.DeepEqual(answer, now) {
			t.Errorf("POST answer %v\nGET %v", answer, now)
		}
	}
}

// TestOwnInsertStoresAsEnt: on SQLite the event log inserts a transaction's
// events with its own statement and calls its insert listeners (the webhook
// fan-out) instead of ent's hooks; without a Log in the context (tools)
// ent inserts them. Both must store the same thing: every column with the
// same SQLite type and text, so that readers, filters and sorts cannot tell
// which path wrote an event.
func TestOwnInsertStoresAsEnt(t *testing.T) {
	if apptest.Postgres() {
		t.Skip("SQLite's paths; PostgreSQL's own INSERT is TestPendingInsertWritesEveryColumn's and the sequencer's")
	}
	s := apptest.New(t)
	env := s.Env(environment.Production)
	var heard []eventlog.Inserted
	env.Events.OnInsert(func(ctx context.Context, c *ent.Client, events []eventlog.Inserted) error {
		if _, ok := eventlog.EndpointsStamp(ctx); !ok {
			t.Error("an insert listener ran without the endpoints' stamp in its context")
		}
		heard = append(heard, events...)
		return nil
	})
	at := time.Date(2026, 3, 4, 5, 6, 7, 891234000, time.UTC)
	write := func(ctx context.Context, subject resourceid.ID) {
		t.Helper()
		if err := service.WithTx(ctx, func(ctx context.Context) error {
			return eventlog.Record(ctx, eventlog.Change{
				Type: "hub.updated", SubjectID: subject, Actor: "tok_x",
				Object:   map[string]any{"id": "hub_x", "name": "<b>&", "n": json.RawMessage(`1.50`), "t": view.JSONText(`{"a":[1,"\u003c"]}`)},
				Previous: map[string]any{"name": "old"},
				Extra:    map[string]any{"cause": map[string]any{"effect": "e"}},
			})
		}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := s.Ctx(environment.Production)
	write(ctx, "hub_own")
	if len(heard) != 1 || heard[0].Type != "hub.updated" {
		t.Fatalf("the listeners heard %v, want the one event the log inserted", heard)
	}
	write(eventlog.NewContext(ctx, nil), "hub_ent")
	if len(heard) != 1 {
		t.Fatalf("the listeners heard %v: ent's insert runs ent's hooks, not them", heard)
	}
	row := func(subject string) []string {
		t.Helper()
		var cols []string
		for _, c := range event.Columns {
			cols = append(cols, "typeof("+c+")", "CAST("+c+" AS TEXT)")
		}
		var v []sql.NullString = make([]sql.NullString, len(cols))
		dest := make([]any, len(v))
		for i := range v {
			dest[i] = &v[i]
		}
		// The times differ between the two writes: compare their shape.
		if err := env.DB.SQL.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM events WHERE subject_id = ?", subject).Scan(dest...); err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = s.String
			switch event.Columns[i/2] {
			case event.FieldID, event.FieldSubjectID, event.FieldSequence:
				if i%2 == 1 {
					out[i] = "…"
				}
			case event.FieldCreatedAt, event.FieldUpdatedAt, event.FieldOccurredAt:
				if i%2 == 1 {
					tm, err := time.Parse("2006-01-02 15:04:05.999999999-07:00", s.String)
					if err != nil || tm.Location() != time.UTC && tm.Format("-07:00") != "+00:00" {
						t.Errorf("%s of %s: %q, not as go-sqlite3 writes a UTC time (%v)", event.Columns[i/2], subject, s.String, err)
					}
					out[i] = at.Format(time.RFC3339)
				}
			}
		}
		return out
	}
	own, byEnt := row("hub_own"), row("hub_ent")
	if !slices.Equal(own, byEnt) {
		for i := range own {
			if own[i] != byEnt[i] {
				t.Errorf("%s: the log's own INSERT stored %q, ent's %q", event.Columns[i/2], own[i], byEnt[i])
			}
		}
	}
}
