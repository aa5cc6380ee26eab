package graph_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"logistics/graph"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// ---- a graphql-transport-ws client ----

type wsClient struct {
	t    testing.TB
	c    *coderws.Conn
	ctx  context.Context
	stop context.CancelFunc
}

type wsMsg struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dialWS opens a graphql-transport-ws connection to env's /graphql with
// header on the upgrade and init as the connection_init payload, and waits
// for the acknowledgement.
func dialWS(t testing.TB, srv *apptest.Server, env environment.Name, header http.Header, init map[string]any) *wsClient {
	t.Helper()
	c, err := tryWS(t, srv, env, header, init)
	if err != nil {
		t.Fatalf("websocket: %v", err)
	}
	return c
}

func tryWS(t testing.TB, srv *apptest.Server, env environment.Name, header http.Header, init map[string]any) (*wsClient, error) {
	return dialWSWith(t, srv, env, header, init, nil)
}

func dialWSWith(t testing.TB, srv *apptest.Server, env environment.Name, header http.Header, init map[string]any, hc *http.Client) (*wsClient, error) {
	ctx, cancel := context.WithCancel(context.Background())
	u := "ws" + strings.TrimPrefix(srv.Base(env), "http") + "/graphql"
	c, _, err := coderws.Dial(ctx, u, &coderws.DialOptions{HTTPHeader: header, Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: hc})
	if err != nil {
		cancel()
		return nil, err
	}
	c.SetReadLimit(1 << 22)
	w := &wsClient{t: t, c: c, ctx: ctx, stop: cancel}
	t.Cleanup(w.close)
	w.send(wsMsg{Type: "connection_init", Payload: mustJSON(init)})
	m, err := w.read(10 * time.Second)
	if err != nil {
		return nil, err
	}
	if m.Type != "connection_ack" {
		return nil, fmt.Errorf("got %s %s, want connection_ack", m.Type, m.Payload)
	}
	return w, nil
}

func mustJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

func (w *wsClient) close() {
	_ = w.c.CloseNow()
	w.stop()
}

func (w *wsClient) send(m wsMsg) {
	w.t.Helper()
	b, _ := json.Marshal(m)
	if err := w.c.Write(w.ctx, coderws.MessageText, b); err != nil {
		w.t.Fatalf("websocket write: %v", err)
	}
}

func (w *wsClient) subscribe(id, query string, vars map[string]any) {
	w.send(wsMsg{ID: id, Type: "subscribe", Payload: mustJSON(map[string]any{"query": query, "variables": vars})})
}

// read returns the next message other than ping/pong/ka.
func (w *wsClient) read(d time.Duration) (wsMsg, error) {
	ctx, cancel := context.WithTimeout(w.ctx, d)
	defer cancel()
	for {
		_, b, err := w.c.Read(ctx)
		if err != nil {
			return wsMsg{}, err
		}
		var m wsMsg
		if err := json.Unmarshal(b, &m); err != nil {
			return wsMsg{}, err
		}
		switch m.Type {
		case "ping":
			pong, _ := json.Marshal(wsMsg{Type: "pong"})
			_ = w.c.Write(w.ctx, coderws.MessageText, pong)
			continue
		case "pong", "ka":
			continue
		}
		return m, nil
	}
}

// next returns the data of the next "next" message of subscription id.
func (w *wsClient) next(id string) map[string]any {
	w.t.Helper()
	m, err := w.read(15 * time.Second)
	if err != nil {
		w.t.Fatalf("websocket read: %v", err)
	}
	if m.Type != "next" || m.ID != id {
		w.t.Fatalf("got %s (id %s) %s, want next of %s", m.Type, m.ID, m.Payload, id)
	}
	var p struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if len(p.Errors) > 0 {
		w.t.Fatalf("errors in next: %s", m.Payload)
	}
	return p.Data
}

// quiet asserts nothing arrives for d.
func (w *wsClient) quiet(d time.Duration) {
	w.t.Helper()
	m, err := w.read(d)
	if err == nil {
		w.t.Fatalf("unexpected message %s %s", m.Type, m.Payload)
	}
}

// ---- a GraphQL-over-SSE client ----

type sseEvent struct {
	ID    string
	Event string
	Data  string
}

type sseClient struct {
	t      testing.TB
	resp   *http.Response
	events chan sseEvent
	stop   context.CancelFunc
}

func dialSSE(t testing.TB, srv *apptest.Server, env environment.Name, header http.Header, query string, vars map[string]any) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Base(env)+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if header.Get("Authorization") == "" && header.Get("Cookie") == "" {
		req.Header.Set("Authorization", "Bearer "+srv.Keys[env])
	}
	for k, vs := range header {
		for _, v := range vs {
			if v != "" {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := srv.Client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("sse: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("sse: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	c := &sseClient{t: t, resp: resp, events: make(chan sseEvent, 1000), stop: cancel}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || ev.Data != "" {
					c.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data += line[6:]
			}
		}
	}()
	t.Cleanup(c.close)
	return c
}

func (c *sseClient) close() {
	c.stop()
	c.resp.Body.Close()
}

func (c *sseClient) next() (sseEvent, map[string]any) {
	c.t.Helper()
	return c.read(true)
}

func (c *sseClient) read(strict bool) (sseEvent, map[string]any) {
	c.t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			c.t.Fatal("sse: stream ended")
		}
		var p struct {
			Data   map[string]any `json:"data"`
			Errors []any          `json:"errors"`
		}
		if ev.Event == "next" {
			_ = json.Unmarshal([]byte(ev.Data), &p)
			if len(p.Errors) > 0 && strict {
				c.t.Fatalf("sse errors: %s", ev.Data)
			}
		}
		return ev, p.Data
	case <-time.After(15 * time.Second):
		c.t.Fatal("sse: no event within 15 s")
	}
	return sseEvent{}, nil
}

// ---- fixtures through REST ----

func restOrder(t testing.TB, srv *apptest.Server, env environment.Name, hubID, ref string) string {
	t.Helper()
	resp := srv.Do(t, http.MethodPost, srv.Base(env)+"/v1/orders", map[string]any{"hub_id": hubID, "customer_ref": ref}, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create order: %d %s", resp.StatusCode, resp.Body)
	}
	var o struct{ ID string }
	resp.JSON(t, &o)
	return o.ID
}

func restPatchOrder(t testing.TB, srv *apptest.Server, env environment.Name, id, ref string) {
	t.Helper()
	resp := srv.Do(t, http.MethodPatch, srv.Base(env)+"/v1/orders/"+id, map[string]any{"customer_ref": ref}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("patch order: %d %s", resp.StatusCode, resp.Body)
	}
}

func keyWith(t testing.TB, srv *apptest.Server, env environment.Name, scopes ...string) (secret, id string) {
	t.Helper()
	secret, tok, err := srv.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{Name: "sub test", Environment: env, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return secret, string(tok.ID)
}

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func seqOf(t testing.TB, v any) int64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("sequence %v is not a number", v)
	}
	return int64(f)
}

const orderSub = `subscription($where: OrderWhereInput, $after: Int) {
  orderChanged(where: $where, after: $after) { sequence type eventID order { id customerRef } }
}`

// ---- tests ----

// TestSubscriptionOrderChangedWebSocket: the where filter (one query per
// batch, the same WhereInput as queries), the event type and sequence, and
// the per-event scope: a key without orders:read is refused.
func TestSubscriptionOrderChangedWebSocket(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	f := newFixture(t, srv, env)
	hub := f.hub("AMS1", "Amsterdam", "NL")

	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("all", orderSub, nil)
	w.subscribe("vip", orderSub, map[string]any{"where": map[string]any{"customerRefHasPrefix": "VIP"}})
	time.Sleep(200 * time.Millisecond) // subscribed before the first change

	// The filter is evaluated on the order as it is when the event is
	// delivered (docs/subscriptions.md): read each step before the next.
	got := map[string][]string{}
	var seqs []int64
	read := func(n int) {
		for range n {
			m, err := w.read(15 * time.Second)
			if err != nil || m.Type != "next" {
				t.Fatalf("read: %v %s %s", err, m.Type, m.Payload)
			}
			var p struct {
				Data struct {
					OrderChanged struct {
						Sequence int64
						Type     string
						Order    struct{ ID, CustomerRef string }
					}
				}
			}
			_ = json.Unmarshal(m.Payload, &p)
			oc := p.Data.OrderChanged
			got[m.ID] = append(got[m.ID], oc.Type+" "+oc.Order.ID)
			if m.ID == "all" {
				seqs = append(seqs, oc.Sequence)
			}
		}
	}
	plain := restOrder(t, srv, env, hub, "C-1")
	read(1)
	vip := restOrder(t, srv, env, hub, "VIP-1")
	read(2)
	restPatchOrder(t, srv, env, plain, "VIP-2") // now matches the filter too
	read(2)
	want := map[string][]string{
		"all": {"order.created " + plain, "order.created " + vip, "order.updated " + plain},
		"vip": {"order.created " + vip, "order.updated " + plain},
	}
	for k := range want {
		if strings.Join(got[k], ",") != strings.Join(want[k], ",") {
			t.Errorf("%s: got %v, want %v", k, got[k], want[k])
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Errorf("sequences not increasing: %v", seqs)
		}
	}

	// A key without orders:read: the subscription is refused.
	noOrders, _ := keyWith(t, srv, env, "items:read")
	w2 := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + noOrders})
	w2.subscribe("x", orderSub, nil)
	m, err := w2.read(10 * time.Second)
	if err != nil || (m.Type != "error" && m.Type != "next") || !strings.Contains(string(m.Payload), "FORBIDDEN") {
		t.Fatalf("without orders:read: %v %s %s", err, m.Type, m.Payload)
	}
	if m, err := w2.read(10 * time.Second); err != nil || m.Type != "complete" {
		t.Fatalf("without orders:read: %v %s", err, m.Type)
	}
	// …while the same connection may subscribe to stock.
	w2.subscribe("s", `subscription { stockChanged { sequence type item { id } } }`, nil)
	time.Sleep(200 * time.Millisecond) // subscribed before the item is created (it starts from the newest event)
	part := f.part("SKU-1", "Bolt")
	it := f.item(part, hub, "5")
	d := w2.next("s")
	if dig(d, "stockChanged", "type") != "item.created" || dig(d, "stockChanged", "item", "id") != it {
		t.Fatalf("stockChanged: %v", d)
	}

	// A where that crosses a relation needs read scope on the related type,
	// as in queries: an items:read key may not probe hubs by filtering
	// stock on them…
	w2.subscribe("r", `subscription { stockChanged(where: {hasHubWith: {code: "AMS1"}}) { sequence } }`, nil)
	if m, err := w2.read(10 * time.Second); err != nil || m.ID != "r" || !strings.Contains(string(m.Payload), "FORBIDDEN") || !strings.Contains(string(m.Payload), "hubs:read") {
		t.Fatalf("stockChanged filtered on its hub without hubs:read: %v %s %s", err, m.Type, m.Payload)
	}
	// …while a key with both scopes may.
	both, _ := keyWith(t, srv, env, "items:read", "orders:read", "hubs:read")
	w3 := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + both})
	w3.subscribe("r", `subscription { orderChanged(where: {hasHubWith: {code: "AMS1"}}) { sequence } }`, nil)
	time.Sleep(200 * time.Millisecond)
	f.order(hub)
	if d := w3.next("r"); dig(d, "orderChanged", "sequence") == nil {
		t.Fatalf("orderChanged filtered on its hub with hubs:read: %v", d)
	}
}

// TestSubscriptionTrackingAndStockFilters: trackingEntryAdded and
// stockChanged apply their where inputs; events filters by type.
func TestSubscriptionTrackingAndStockFilters(t *testing.T) {
	// A short execution time limit: it must not end idle subscriptions.
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.MaxExecTime = 2 * time.Second }})
	env := environment.Sandbox
	f := newFixture(t, srv, env)
	hub := f.hub("RTM1", "Rotterdam", "NL")
	part := f.part("SKU-2", "Nut")
	o := f.order(hub)

	served, declined := srv.App.FastPath.Served.Load(), srv.App.FastPath.Declined.Load()
	w := dialWS(t, srv, env, http.Header{"Authorization": {"Bearer " + srv.Keys[env]}}, nil)
	w.subscribe("t", `subscription { trackingEntryAdded(where: {carrier: "DHL", status: delivered}) { type trackingEntry { id trackingNumber } } }`, nil)
	w.subscribe("s", `subscription { stockChanged(where: {quantityGTE: "10"}) { type item { id quantity } } }`, nil)
	w.subscribe("e", `subscription { events(types: ["item.*"]) { type sequence subjectID } }`, nil)
	time.Sleep(2500 * time.Millisecond) // idle longer than the execution time limit

	f.tracking(o, "TN-1", "in_transit") // filtered out
	f.tracking(o, "TN-2", "delivered")
	small := f.item(part, hub, "3") // filtered out of s, in e
	big := f.item(part, hub, "12")

	got := map[string][]string{}
	for range 4 { // t: 1, s: 1, e: 2
		m, err := w.read(15 * time.Second)
		if err != nil || m.Type != "next" {
			t.Fatalf("read: %v %s %s", err, m.Type, m.Payload)
		}
		got[m.ID] = append(got[m.ID], string(m.Payload))
	}
	if len(got["t"]) != 1 || !strings.Contains(got["t"][0], "TN-2") {
		t.Errorf("trackingEntryAdded: %v", got["t"])
	}
	if len(got["s"]) != 1 || !strings.Contains(got["s"][0], big) {
		t.Errorf("stockChanged: %v", got["s"])
	}
	if len(got["e"]) != 2 || !strings.Contains(got["e"][0], small) || !strings.Contains(got["e"][1], big) {
		t.Errorf("events: %v", got["e"])
	}
	w.quiet(300 * time.Millisecond)
	// The generated fast path (graph/fastpath.go) serves queries only: it
	// neither served nor declined (counted) a subscription field.
	if srv.App.FastPath.Served.Load() != served || srv.App.FastPath.Declined.Load() != declined {
		t.Errorf("fast path saw subscription fields: served %d→%d, declined %d→%d",
			served, srv.App.FastPath.Served.Load(), declined, srv.App.FastPath.Declined.Load())
	}
}

// TestSubscriptionSSEResume: over Server-Sent Events each event carries
// its sequence as id:; a client that drops the connection and comes back
// with Last-Event-ID (or after:) receives exactly the events committed
// meanwhile, in order, then live ones: no gap, no duplicate.
func TestSubscriptionSSEResume(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	f := newFixture(t, srv, env)
	hub := f.hub("AMS2", "Amsterdam", "NL")

	c := dialSSE(t, srv, env, http.Header{}, orderSub, nil)
	time.Sleep(200 * time.Millisecond) // subscribed
	first := restOrder(t, srv, env, hub, "R-0")
	ev, d := c.next()
	if dig(d, "orderChanged", "order", "id") != first {
		t.Fatalf("first: %v %v", ev, d)
	}
	last, err := strconv.ParseInt(ev.ID, 10, 64)
	if err != nil || last != seqOf(t, dig(d, "orderChanged", "sequence")) {
		t.Fatalf("id: line %q, sequence %v", ev.ID, dig(d, "orderChanged", "sequence"))
	}
	c.close()

	// Committed while disconnected.
	var missed []string
	for i := range 5 {
		missed = append(missed, restOrder(t, srv, env, hub, fmt.Sprintf("R-%d", i+1)))
	}
	c2 := dialSSE(t, srv, env, http.Header{"Last-Event-Id": {strconv.FormatInt(last, 10)}}, orderSub, nil)
	live := make(chan string, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		live <- restOrder(t, srv, env, hub, "R-live")
	}()
	prev := last
	var ids []string
	for range 6 {
		ev, d := c2.next()
		for ev.Event != "next" {
			ev, d = c2.next()
		}
		seq, _ := strconv.ParseInt(ev.ID, 10, 64)
		if seq <= prev {
			t.Fatalf("sequence %d after %d: duplicate or out of order", seq, prev)
		}
		prev = seq
		ids = append(ids, dig(d, "orderChanged", "order", "id").(string))
	}
	missed = append(missed, <-live)
	if strings.Join(ids, ",") != strings.Join(missed, ",") {
		t.Fatalf("resumed: got %v, want %v", ids, missed)
	}

	// after: in the query does the same over WebSocket.
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("r", orderSub, map[string]any{"after": last})
	for i, want := range missed {
		d := w.next("r")
		if got := dig(d, "orderChanged", "order", "id"); got != want {
			t.Fatalf("ws resume %d: got %v, want %v", i, got, want)
		}
	}
	w.quiet(300 * time.Millisecond)
}

// TestSubscriptionRevokedKeyEnds: revoking the key closes the WebSocket with
// 4403 within the re-check interval; the SSE stream ends with an
// UNAUTHENTICATED error event.
func TestSubscriptionRevokedKeyEnds(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	secret, id := keyWith(t, srv, env, "orders:read")
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + secret})
	w.subscribe("a", orderSub, nil)
	c := dialSSE(t, srv, env, http.Header{"Authorization": {"Bearer " + secret}}, orderSub, nil)
	time.Sleep(200 * time.Millisecond)
	if _, err := srv.App.Auth.Store.RevokeToken(context.Background(), &auth.Principal{Role: "owner"}, id); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		m, err := w.read(10 * time.Second)
		if err != nil {
			if coderws.CloseStatus(err) != 4403 {
				t.Fatalf("closed with %v, want 4403", err)
			}
			break
		}
		if m.Type == "error" && !strings.Contains(string(m.Payload), "UNAUTHENTICATED") {
			t.Fatalf("error %s", m.Payload)
		}
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("closed after %s", time.Since(start))
	}
	for {
		ev, _ := c.read(false)
		if ev.Event == "next" {
			if !strings.Contains(ev.Data, "UNAUTHENTICATED") {
				t.Fatalf("sse: %v", ev)
			}
			break
		}
	}
	if ev, _ := c.read(false); ev.Event != "complete" {
		t.Fatalf("sse: want complete, got %v", ev)
	}
}

// TestSubscriptionSlowConsumer: a client that stops reading is closed
// (4410) once its buffer stayed full for slowGrace (or cut), while another
// subscriber on the same server keeps receiving every event — in bursts
// larger than its buffer, which it empties at once — and writers are not
// slowed.
func TestSubscriptionSlowConsumer(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SubscriptionBuffer = 16 }})
	env := environment.Production
	f := newFixture(t, srv, env)
	hub := f.hub("AMS3", "Amsterdam", "NL")
	// Large payloads fill the slow client's socket buffers quickly.
	big := `subscription { events { type sequence data subjectID actor createdAt } }`
	slow := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	for i := range 20 { // 20 copies of every event: far more than socket buffers hold
		slow.subscribe(fmt.Sprint("s", i), big, nil)
	}
	fast := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	fast.subscribe("f", `subscription { events(types: ["order.created"]) { sequence } }`, nil)
	time.Sleep(200 * time.Millisecond)

	const n = 400
	done := make(chan []int64)
	halfway := make(chan struct{})
	go func() {
		var seqs []int64
		for i := range n {
			if i == n/4 {
				close(halfway)
			}
			m, err := fast.read(60 * time.Second)
			if err != nil {
				break
			}
			var p struct {
				Data struct{ Events struct{ Sequence int64 } }
			}
			_ = json.Unmarshal(m.Payload, &p)
			seqs = append(seqs, p.Data.Events.Sequence)
		}
		done <- seqs
	}()
	ref := strings.Repeat("x", 40)
	start := time.Now()
	for i := range n {
		restOrder(t, srv, env, hub, fmt.Sprintf("%s-%d", ref, i))
	}
	writeTime := time.Since(start)
	// The slow client wakes up once the fast one has every event and its
	// own buffer has been full for longer than slowGrace: it reads what was
	// buffered for it, then the close.
	closed := make(chan error, 1)
	fastDone := make(chan struct{})
	var woke time.Duration // from the first write to the slow client's first read
	go func() {
		<-halfway
		<-fastDone
		time.Sleep(graph.SlowGrace + time.Second)
		woke = time.Since(start)
		for {
			if _, err := slow.read(30 * time.Second); err != nil {
				closed <- err
				return
			}
		}
	}()
	seqs := <-done
	close(fastDone)
	if len(seqs) != n {
		t.Fatalf("fast subscriber got %d of %d events", len(seqs), n)
	}
	for i := 1; i < n; i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("fast subscriber: out of order at %d: %v", i, seqs[i-1:i+1])
		}
	}
	t.Logf("%d writes took %s with a stalled subscriber", n, writeTime)
	closeErr := <-closed
	// 4410; or the connection dropped, when the slow client woke too late to
	// read the close: the server closes it with 4410 about SlowGrace after
	// its buffer filled (within the first events), and the WebSocket
	// library gives the close frame 5 s to get through a socket whose
	// buffers are full before it drops the connection. (Bounding this by
	// the writers' time failed on a loaded CI machine twice: writes 7.9 s
	// and 5.7 s, the slow client woke at about 10 s and 7.7 s.)
	if st := coderws.CloseStatus(closeErr); st != 4410 && woke < graph.SlowGrace+5*time.Second {
		t.Fatalf("slow subscriber closed with %v after waking at %s", closeErr, woke)
	}
}

// TestSubscriptionBurstLargerThanBuffer: a subscriber that reads as fast as
// it can is not closed as too slow when more events than its buffer holds
// come at once — here a replay of the log from sequence 0, read a page at a
// time.
func TestSubscriptionBurstLargerThanBuffer(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SubscriptionBuffer = 4 }})
	env := environment.Production
	f := newFixture(t, srv, env)
	hub := f.hub("AMS4", "Amsterdam", "NL")
	const n = 60
	for i := range n {
		restOrder(t, srv, env, hub, fmt.Sprint("burst-", i))
	}
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("b", `subscription { events(types: ["order.created"], after: 0) { sequence } }`, nil)
	var prev int64
	for i := range n {
		m, err := w.read(30 * time.Second)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		var p struct {
			Data struct{ Events struct{ Sequence int64 } }
		}
		if err := json.Unmarshal(m.Payload, &p); err != nil || p.Data.Events.Sequence <= prev {
			t.Fatalf("event %d: %s (after %d)", i, m.Payload, prev)
		}
		prev = p.Data.Events.Sequence
	}
}

// TestSubscriptionAcrossInstances: an order changed through instance A
// reaches subscribers on instance B (PostgreSQL: LISTEN/NOTIFY wakes B's
// reader, which reads the shared log). On SQLite the twin shares the file,
// and B's reader finds the event on its timer.
func TestSubscriptionAcrossInstances(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("several instances share one database on PostgreSQL; set " + apptest.PostgresEnv)
	}
	a := apptest.New(t)
	b := a.Twin(t)
	env := environment.Production
	hub := newFixture(t, a, env).hub("AMS4", "Amsterdam", "NL")

	w := dialWS(t, b, env, nil, map[string]any{"Authorization": "Bearer " + b.Keys[env]})
	w.subscribe("o", orderSub, nil)
	c := dialSSE(t, b, env, http.Header{}, orderSub, nil)
	time.Sleep(300 * time.Millisecond)

	var want []string
	start := time.Now()
	for i := range 5 {
		want = append(want, restOrder(t, a, env, hub, fmt.Sprintf("X-%d", i)))
	}
	for i, id := range want {
		if got := dig(w.next("o"), "orderChanged", "order", "id"); got != id {
			t.Fatalf("ws on B, event %d: got %v, want %s", i, got, id)
		}
		_, d := c.next()
		if got := dig(d, "orderChanged", "order", "id"); got != id {
			t.Fatalf("sse on B, event %d: got %v, want %s", i, got, id)
		}
	}
	// Well under the 2 s poll: the notification woke B.
	if took := time.Since(start); took > 1800*time.Millisecond {
		t.Errorf("delivery across instances took %s: the notification did not wake the reader", took)
	}
	w.quiet(300 * time.Millisecond)
}

// TestSubscriptionSessionCookieAndOrigin: a console session subscribes over
// WebSocket with its cookie from the service's own origin; the same upgrade
// from another origin is refused; no credentials at all close the
// connection with 4401.
func TestSubscriptionSessionCookieAndOrigin(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	h := srv.Session(t, srv.AdminEmail, srv.AdminPassword)
	cookie := http.Header{"Cookie": {h.Get("Cookie")}, "Origin": {srv.URL}}
	w := dialWS(t, srv, env, cookie, nil)
	w.subscribe("o", orderSub, nil)
	time.Sleep(200 * time.Millisecond)
	hub := newFixture(t, srv, env).hub("AMS5", "Amsterdam", "NL")
	id := restOrder(t, srv, env, hub, "S-1")
	if got := dig(w.next("o"), "orderChanged", "order", "id"); got != id {
		t.Fatalf("session subscription: got %v, want %s", got, id)
	}

	cross := http.Header{"Cookie": {h.Get("Cookie")}, "Origin": {"https://evil.example"}}
	if _, err := tryWS(t, srv, env, cross, nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("cross-origin upgrade: %v, want 403", err)
	}

	_, err := tryWS(t, srv, env, nil, nil)
	if coderws.CloseStatus(err) != 4401 {
		t.Fatalf("no credentials: %v, want close 4401", err)
	}
	// Only /graphql defers authentication of an upgrade to connection_init.
	resp := srv.Do(t, http.MethodGet, srv.URL+"/v1/orders", nil, http.Header{"Authorization": {""}, "Upgrade": {"websocket"}, "Connection": {"Upgrade"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("REST with an upgrade and no credentials: %d", resp.StatusCode)
	}
}

// TestSubscriptionCORSOrigin: an SPA on an origin listed in --cors-origins
// subscribes over WebSocket with the session cookie, as it queries; an
// origin not listed is still refused before the upgrade.
func TestSubscriptionCORSOrigin(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.CORSOrigins = "http://localhost:*" }})
	env := environment.Production
	h := srv.Session(t, srv.AdminEmail, srv.AdminPassword)
	w := dialWS(t, srv, env, http.Header{"Cookie": {h.Get("Cookie")}, "Origin": {"http://localhost:5173"}}, nil)
	w.subscribe("o", orderSub, nil)
	time.Sleep(200 * time.Millisecond)
	hub := newFixture(t, srv, env).hub("AMS6", "Amsterdam", "NL")
	id := restOrder(t, srv, env, hub, "C-1")
	if got := dig(w.next("o"), "orderChanged", "order", "id"); got != id {
		t.Fatalf("subscription from a listed origin: got %v, want %s", got, id)
	}
	for _, origin := range []string{"http://evil.localhost.example:5173", "https://localhost.evil.example"} {
		_, err := tryWS(t, srv, env, http.Header{"Cookie": {h.Get("Cookie")}, "Origin": {origin}}, nil)
		if err == nil || !strings.Contains(err.Error(), "403") {
			t.Fatalf("upgrade from %s: %v, want 403", origin, err)
		}
	}
}

// TestSubscriptionLimitAndShutdown: a key holds at most the configured
// number of subscriptions; at shutdown every WebSocket subscription gets an
// error message with SHUTTING_DOWN (so that the client knows it ended and
// resubscribes from its last sequence), then the connection closes with
// 1001; SSE clients get a SHUTTING_DOWN error event, then the end of the
// stream. Before, the WebSocket got the close alone, and graphql-ws
// resubscribed by itself with the after: it had first sent.
func TestSubscriptionLimitAndShutdown(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SubscriptionLimit = 3 }})
	env := environment.Production
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("1", orderSub, nil)
	w.subscribe("2", orderSub, nil)
	c := dialSSE(t, srv, env, http.Header{}, orderSub, nil)
	time.Sleep(200 * time.Millisecond)
	w.subscribe("4", orderSub, nil)
	m, err := w.read(10 * time.Second)
	if err != nil || m.ID != "4" || !strings.Contains(string(m.Payload), "RATE_LIMITED") {
		t.Fatalf("fourth subscription: %v %s %s", err, m.Type, m.Payload)
	}
	if m, err := w.read(10 * time.Second); err != nil || m.ID != "4" || m.Type != "complete" {
		t.Fatalf("fourth subscription: %v %s %s, want its complete", err, m.Type, m.Payload)
	}
	total := 0
	for _, n := range srv.App.Streams.Counts() {
		total += n
	}
	if total != 3 {
		t.Fatalf("open subscriptions: %v, want 3", srv.App.Streams.Counts())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go srv.App.Streams.Shutdown(ctx)
	ended := map[string]bool{}
	for {
		m, err := w.read(10 * time.Second)
		if err != nil {
			if coderws.CloseStatus(err) != coderws.StatusGoingAway {
				t.Fatalf("shutdown closed the WebSocket with %v, want 1001", err)
			}
			break
		}
		if m.Type != "error" || !strings.Contains(string(m.Payload), "SHUTTING_DOWN") || ended[m.ID] {
			t.Fatalf("shutdown: %s %s %s, want one SHUTTING_DOWN error message per subscription", m.ID, m.Type, m.Payload)
		}
		ended[m.ID] = true
	}
	if !ended["1"] || !ended["2"] {
		t.Fatalf("error messages before the close for %v, want 1 and 2", ended)
	}
	ev, _ := c.read(false)
	if ev.Event != "next" || !strings.Contains(ev.Data, "SHUTTING_DOWN") {
		t.Fatalf("sse at shutdown: %v", ev)
	}
	if ev, _ := c.read(false); ev.Event != "complete" {
		t.Fatalf("sse at shutdown: want complete, got %v", ev)
	}
}

// TestSubscriptionMetrics: /metrics counts the subscriptions open on this
// instance by environment and transport, and counts them down as they end.
func TestSubscriptionMetrics(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	scrape := func() string {
		return string(srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, apptest.Anonymous()).Body)
	}
	want := func(ws, sse int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			body := scrape()
			w := fmt.Sprintf("logistics_subscriptions_open{environment=\"production\",transport=\"websocket\"} %d\n", ws)
			s := fmt.Sprintf("logistics_subscriptions_open{environment=\"production\",transport=\"sse\"} %d\n", sse)
			if strings.Contains(body, w) && strings.Contains(body, s) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("want %q and %q in:\n%s", w, s, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("1", orderSub, nil)
	w.subscribe("2", orderSub, nil)
	c := dialSSE(t, srv, env, http.Header{}, orderSub, nil)
	want(2, 1)
	c.close()
	w.close()
	want(0, 0)
}
