package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/standardwebhooks"
)

// The event-scope walk: every event type of the catalog, seen through the
// four doors of the event log — GET /v1/events, GraphQL events (and node),
// the events subscription (Server-Sent Events), and webhook delivery to a
// real local receiver — by keys holding each single read scope, every read
// scope, and none: each event is visible exactly when the key holds the read
// scope of its type (auth.EventTypeScopes). A type asked for by name that the
// key may not read is 403 naming the scope; registering or resending on a
// webhook endpoint needs the read scope of every type it receives.

// hookReceiver is a real local webhook receiver that verifies signatures and
// keeps every body by webhook-id.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	bodies map[string]map[string]any
	bad    int
	status int // answer (0: 200)
}

func newHookReceiver(t *testing.T, status int) *hookReceiver {
	r := &hookReceiver{bodies: map[string]map[string]any{}, status: status}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.secret == "" || standardwebhooks.Verify(r.secret, req.Header, body, time.Now(), 5*time.Minute) != nil {
			r.bad++
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var v map[string]any
		_ = json.Unmarshal(body, &v)
		r.bodies[req.Header.Get(standardwebhooks.HeaderID)] = v
		if r.status != 0 {
			w.WriteHeader(r.status)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *hookReceiver) ids() map[string]map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]map[string]any{}
	for k, v := range r.bodies {
		out[k] = v
	}
	return out
}

// walkEvent is one event of the log as the all-scopes key sees it.
type walkEvent struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Sequence int64          `json:"sequence"`
	Data     map[string]any `json:"data"`
}

// restEvents reads the whole log by sequence with header's key.
func restEvents(t *testing.T, srv *apptest.Server, base string, h http.Header) []walkEvent {
	t.Helper()
	var all []walkEvent
	after := int64(0)
	for {
		resp := srv.Do(t, "GET", fmt.Sprintf("%s/v1/events?after=%d&limit=100", base, after), nil, h)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/events: %d %s", resp.StatusCode, resp.Body)
		}
		var page struct {
			Data      []walkEvent `json:"data"`
			HasMore   bool        `json:"has_more"`
			NextAfter int64       `json:"next_after"`
		}
		resp.JSON(t, &page)
		all = append(all, page.Data...)
		if !page.HasMore {
			return all
		}
		after = page.NextAfter
	}
}

// sseEvents subscribes to events(after: 0) over Server-Sent Events and
// returns the ids of the first n events it receives, then checks that no
// other arrives within quiet.
func sseEvents(t *testing.T, srv *apptest.Server, env environment.Name, h http.Header, query string, n int, quiet time.Duration) (ids []string, firstError string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Base(env)+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", h.Get("Authorization"))
	resp, err := srv.Client.Do(req)
	if err != nil {
		t.Fatalf("sse: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Sprintf("HTTP %d %s", resp.StatusCode, b)
	}
	type msg struct {
		event, data string
	}
	msgs := make(chan msg, 1000)
	go func() {
		defer close(msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var m msg
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if m.event != "" || m.data != "" {
					msgs <- m
				}
				m = msg{}
			case strings.HasPrefix(line, "event: "):
				m.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				m.data += line[6:]
			}
		}
	}()
	for {
		wait := 15 * time.Second
		if len(ids) >= n {
			wait = quiet
		}
		select {
		case m, ok := <-msgs:
			if !ok {
				return ids, firstError
			}
			if m.event != "next" {
				continue
			}
			var p struct {
				Data struct {
					Events struct {
						ID string `json:"id"`
					} `json:"events"`
				} `json:"data"`
				Errors []apptest.GQLError `json:"errors"`
			}
			if err := json.Unmarshal([]byte(m.data), &p); err != nil {
				t.Fatalf("sse: %v: %s", err, m.data)
			}
			if len(p.Errors) > 0 {
				return ids, p.Errors[0].Code() + ": " + p.Errors[0].Message
			}
			ids = append(ids, p.Data.Events.ID)
		case <-time.After(wait):
			return ids, firstError
		}
	}
}

func TestEventScopeWalk(t *testing.T) {
	gone := newHookReceiver(t, http.StatusGone)
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.NoDemoData, c.DemoScale = false, 0.02 // the sandbox's demo_data.loaded
		c.WebhookAllowPrivate = true
		c.WebhookPoll = 100 * time.Millisecond
		c.WebhookTimeout = 2 * time.Second
	}})
	env := environment.Sandbox
	base := srv.SandboxURL
	ctx := context.Background()
	newKey := func(scopes ...string) (http.Header, string) {
		t.Helper()
		in := scopes
		if len(in) == 0 {
			in = []string{"hubs:read"} // its scopes are emptied below
		}
		secret, tok, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "walk", Environment: env, Scopes: in})
		if err != nil {
			t.Fatal(err)
		}
		if len(scopes) == 0 {
			// A principal without any scope: the API refuses to make
			// one, so its row is changed directly.
			if err := srv.Env(environment.Production).DB.Client.APIToken.UpdateOneID(tok.ID).SetScopes([]string{}).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return apptest.Bearer(secret), string(tok.ID)
	}

	// The scope sets: each read scope alone, every read scope, none.
	type scopeSet struct {
		name   string
		scopes []string
		key    http.Header // reads the log
		hook   http.Header // the same scopes and webhooks:write
		hookID string
		rc     *hookReceiver
		epID   string
	}
	var sets []*scopeSet
	for _, s := range auth.ReadScopes() {
		sets = append(sets, &scopeSet{name: s, scopes: []string{s}})
	}
	sets = append(sets, &scopeSet{name: "every read scope", scopes: auth.ReadScopes()}, &scopeSet{name: "none"})
	holds := func(scopes []string, typ string) bool {
		p := &auth.Principal{Kind: auth.KindToken, Scopes: scopes}
		return auth.CanReadEvent(p, typ)
	}
	for _, s := range sets {
		s.key, _ = newKey(s.scopes...)
		s.hook, s.hookID = newKey(append(slices.Clone(s.scopes), "webhooks:write")...)
	}

	// The webhook door, before the events: each set's hook key registers
	// an endpoint for every catalog type it may read; a type it may not
	// read, or every type (no event_types), is 403 naming the scope.
	var catalog []string
	for _, c := range eventlog.Catalog {
		catalog = append(catalog, c.Name)
	}
	register := func(h http.Header, rc *hookReceiver, types []string) *apptest.Response {
		body := map[string]any{"url": rc.URL + "/hook"}
		if types != nil {
			body["event_types"] = types
		}
		return srv.Do(t, "POST", base+"/v1/webhook-endpoints", body, h)
	}
	wantForbidden := func(what string, resp *apptest.Response, typ string, scopes []string) {
		t.Helper()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403: %s", what, resp.StatusCode, resp.Body)
			return
		}
		var p struct {
			Code  string `json:"code"`
			Scope string `json:"scope"`
		}
		resp.JSON(t, &p)
		need := auth.EventTypeScopes(typ)
		if p.Scope == "" || !slices.Contains(need, p.Scope) || slices.Contains(scopes, p.Scope) ||
			!strings.Contains(string(resp.Body), p.Scope) || !strings.Contains(resp.Header.Get("WWW-Authenticate"), p.Scope) {
			t.Errorf("%s: the 403 names %q (needs one of %v, key holds %v): %s", what, p.Scope, need, scopes, resp.Body)
		}
	}
	for _, s := range sets {
		hookScopes := append(slices.Clone(s.scopes), "webhooks:read")
		s.rc = newHookReceiver(t, 0)
		var allowed []string
		for _, typ := range catalog {
			if holds(hookScopes, typ) {
				allowed = append(allowed, typ)
			} else {
				wantForbidden(s.name+": register for "+typ, register(s.hook, s.rc, []string{typ}), typ, hookScopes)
			}
		}
		every := register(s.hook, s.rc, nil)
		if len(allowed) == len(catalog) {
			allowed = nil // every type: the wildcard registration below
			if every.StatusCode != http.StatusCreated {
				t.Fatalf("%s: register for every type: %d %s", s.name, every.StatusCode, every.Body)
			}
		} else {
			wantForbidden(s.name+": register for every type", every, "*", hookScopes)
			wantForbidden(s.name+": register for *", register(s.hook, s.rc, []string{"*"}), "*", hookScopes)
			every = register(s.hook, s.rc, allowed)
			if every.StatusCode != http.StatusCreated {
				t.Fatalf("%s: register for %v: %d %s", s.name, allowed, every.StatusCode, every.Body)
			}
		}
		var ep struct{ ID, Secret string }
		every.JSON(t, &ep)
		s.epID = ep.ID
		s.rc.mu.Lock()
		s.rc.secret = ep.Secret
		s.rc.mu.Unlock()
		// Changing the endpoint to a type the key may not read is refused
		// too, and so is any change of an endpoint that receives one.
		for _, typ := range catalog {
			if !holds(hookScopes, typ) {
				resp := srv.Do(t, "PATCH", base+"/v1/webhook-endpoints/"+ep.ID, map[string]any{"event_types": []string{typ}}, s.hook)
				wantForbidden(s.name+": change to "+typ, resp, typ, hookScopes)
				break
			}
		}
	}
	// An endpoint belongs to the environment: revoking the key that
	// registered it (or rotating it: a new key, the old one revoked) does
	// not stop it. The hubs:read set's hook key is revoked now, before the
	// events.
	owner := &auth.Principal{Kind: auth.KindSession, Role: "owner", Scopes: auth.AllScopes()}
	if _, err := srv.App.Auth.Store.RevokeToken(ctx, owner, sets[0].hookID); err != nil {
		t.Fatal(err)
	}
	if resp := srv.Do(t, "GET", base+"/v1/webhook-endpoints", nil, sets[0].hook); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the revoked key: %d", resp.StatusCode)
	}
	// An endpoint whose URL carries a credential, which answers 410 to
	// its first delivery: the service disables it (webhook_endpoint.disabled).
	goneResp := srv.Do(t, "POST", base+"/v1/webhook-endpoints", map[string]any{
		"url": gone.URL + "/gone?token=s3cr3t-value&tenant=acme", "event_types": []string{"hub.created"}}, nil)
	if goneResp.StatusCode != http.StatusCreated {
		t.Fatalf("register the 410 endpoint: %d %s", goneResp.StatusCode, goneResp.Body)
	}
	var goneEP struct{ Secret string }
	goneResp.JSON(t, &goneEP)
	gone.mu.Lock()
	gone.secret = goneEP.Secret
	gone.mu.Unlock()

	// Every other type of the catalog, through the API.
	post := func(path string, body any) map[string]any {
		t.Helper()
		resp := srv.Do(t, "POST", base+path, body, nil)
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, resp.Body)
		}
		var m map[string]any
		resp.JSON(t, &m)
		return m
	}
	do := func(method, path string, body any) {
		t.Helper()
		resp := srv.Do(t, method, base+path, body, nil)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
		}
	}
	hub := post("/v1/hubs", map[string]any{"code": "EVW1", "name": "Walk", "kind": "warehouse", "address": map[string]any{"city": "Utrecht", "country": "NL"}})["id"].(string)
	do("PATCH", "/v1/hubs/"+hub, map[string]any{"name": "Walk One"})
	do("DELETE", "/v1/hubs/"+post("/v1/hubs", map[string]any{"code": "EVW2", "name": "Gone", "kind": "store", "address": map[string]any{"country": "NL"}})["id"].(string), nil)
	part := post("/v1/parts", map[string]any{"sku": "EVW-P1", "part_name": "Walk part", "unit": "ea"})["id"].(string)
	do("PATCH", "/v1/parts/"+part, map[string]any{"part_name": "Walk part 1"})
	do("DELETE", "/v1/parts/"+post("/v1/parts", map[string]any{"sku": "EVW-P2", "part_name": "Gone part", "unit": "ea"})["id"].(string), nil)
	item := post("/v1/items", map[string]any{"sku": "EVW-P1", "hub": "EVW1", "quantity": 10})["id"].(string)
	do("PATCH", "/v1/items/"+item, map[string]any{"quantity": 20})
	do("DELETE", "/v1/items/"+post("/v1/items", map[string]any{"sku": "EVW-P1", "hub": "EVW1", "quantity": 1})["id"].(string), nil)
	if resp := srv.Do(t, "POST", base+"/v1/items/import", "sku,hub,quantity\nEVW-P1,EVW1,5\n", http.Header{"Content-Type": {"text/csv"}}); resp.StatusCode != http.StatusCreated {
		t.Fatalf("import: %d %s", resp.StatusCode, resp.Body)
	}
	order := post("/v1/orders", map[string]any{"hub": "EVW1", "customer_ref": "WALK-1", "lines": []map[string]any{{"sku": "EVW-P1", "quantity": 2}}})["id"].(string)
	line := post("/v1/orders/"+order+"/lines", map[string]any{"sku": "EVW-P1", "quantity": 1})["id"].(string)
	do("PATCH", "/v1/order-lines/"+line, map[string]any{"quantity": 3})
	do("DELETE", "/v1/order-lines/"+line, nil)
	do("PATCH", "/v1/orders/"+order, map[string]any{"customer_ref": "WALK-1b"})
	post("/v1/orders/"+order+"/transitions", map[string]any{"transition": "submit"})
	post("/v1/orders/"+order+"/transitions", map[string]any{"transition": "allocate"})
	do("DELETE", "/v1/orders/"+post("/v1/orders", map[string]any{"hub": "EVW1", "customer_ref": "WALK-2"})["id"].(string), nil)
	trk := post("/v1/tracking-entries", map[string]any{"order_id": order, "tracking_number": "TW1", "carrier": "DHL", "status": "in_transit"})["id"].(string)
	do("PATCH", "/v1/tracking-entries/"+trk, map[string]any{"location": "Utrecht"})
	do("DELETE", "/v1/tracking-entries/"+trk, nil)
	post("/v1/workflows", map[string]any{"key": "walk", "name": "Walk", "states": []string{"new", "done"}, "initial_state": "new",
		"transitions": []map[string]any{{"name": "finish", "from": []string{"new"}, "to": "done"}}})
	if base == srv.SandboxURL { // sandbox.reset (and demo_data.loaded again), last: it erases the data
		post("/v1/sandbox/reset", map[string]any{"confirm": "sandbox", "scale": 0.001})
	}

	// The log as the all-scopes key sees it: every catalog type is there.
	var log []walkEvent
	deadline := time.Now().Add(20 * time.Second)
	for {
		log = restEvents(t, srv, base, nil)
		if slices.ContainsFunc(log, func(e walkEvent) bool { return e.Type == "webhook_endpoint.disabled" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no webhook_endpoint.disabled within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	byType := map[string]walkEvent{}
	for _, e := range log {
		if _, ok := byType[e.Type]; !ok {
			byType[e.Type] = e
		}
	}
	for _, typ := range catalog {
		if _, ok := byType[typ]; !ok {
			t.Fatalf("the walk made no %s event (it has %d events)", typ, len(log))
		}
	}
	// No door shows the endpoint's query string, to anyone.
	disabled := byType["webhook_endpoint.disabled"]
	checkRedacted := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if bytes.Contains(b, []byte("s3cr3t")) || bytes.Contains(b, []byte("acme")) || !bytes.Contains(b, []byte("token="+eventlog.RedactedValue)) {
			t.Errorf("%s shows the endpoint's URL as %s", what, b)
		}
	}
	checkRedacted("GET /v1/events", disabled.Data)
	if raw := srv.Do(t, "GET", base+"/v1/events/"+disabled.ID, nil, nil); true {
		checkRedacted("GET /v1/events/{id}", string(raw.Body))
	}

	// Console sessions follow the same rule with their role's scopes: a
	// viewer holds every read scope, so it sees every event, and may not
	// register an endpoint at all (no webhooks:write).
	if _, err := srv.App.Auth.Store.CreateUser(ctx, "viewer@walk.local", "viewer-password-1", "viewer"); err != nil {
		t.Fatal(err)
	}
	viewer := srv.Session(t, "viewer@walk.local", "viewer-password-1")
	if got := restEvents(t, srv, base, viewer); len(got) != len(log) {
		t.Errorf("a viewer's session: %d events, want %d", len(got), len(log))
	}
	if resp := srv.Do(t, "POST", base+"/v1/webhook-endpoints", map[string]any{"url": gone.URL}, viewer); resp.StatusCode != http.StatusForbidden || !bytes.Contains(resp.Body, []byte(`"scope":"webhooks:write"`)) {
		t.Errorf("a viewer registers an endpoint: %d %s", resp.StatusCode, resp.Body)
	}

	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			var want []string // ids, in sequence order
			for _, e := range log {
				if holds(s.scopes, e.Type) {
					want = append(want, e.ID)
				}
			}
			idsOf := func(evs []walkEvent) []string {
				var out []string
				for _, e := range evs {
					out = append(out, e.ID)
				}
				return out
			}
			// 1. REST: the list, the long poll's after= paging, by id, by type.
			if got := idsOf(restEvents(t, srv, base, s.key)); !slices.Equal(got, want) {
				t.Errorf("REST: %d events, want %d", len(got), len(want))
			}
			resp := srv.Do(t, "GET", base+"/v1/events?limit=100", nil, s.key)
			var page struct {
				Data []walkEvent `json:"data"`
			}
			resp.JSON(t, &page)
			for _, e := range page.Data {
				if !holds(s.scopes, e.Type) {
					t.Errorf("REST list shows %s", e.Type)
				}
			}
			for _, typ := range catalog {
				e := byType[typ]
				ok := holds(s.scopes, typ)
				list := srv.Do(t, "GET", base+"/v1/events?types[]="+url.QueryEscape(typ), nil, s.key)
				get := srv.Do(t, "GET", base+"/v1/events/"+e.ID, nil, s.key)
				if ok {
					if list.StatusCode != 200 || !bytes.Contains(list.Body, []byte(e.ID)) || get.StatusCode != 200 {
						t.Errorf("REST %s: list %d, get %d", typ, list.StatusCode, get.StatusCode)
					}
				} else {
					wantForbidden("REST types[]="+typ, list, typ, s.scopes)
					if get.StatusCode != http.StatusNotFound {
						t.Errorf("REST get of a %s event: %d, want 404", typ, get.StatusCode)
					}
				}
			}
			// 2. GraphQL: events, node, where: {type}.
			var got []string
			after := ""
			for {
				q := `query($after: Cursor) { events(first: 100, after: $after, orderBy: [{field: SEQUENCE}]) { edges { node { id type data } } pageInfo { hasNextPage endCursor } } }`
				vars := map[string]any{}
				if after != "" {
					vars["after"] = after
				}
				g := srv.GraphQLWith(t, env, q, vars, s.key)
				if len(g.Errors) > 0 {
					t.Fatalf("GraphQL events: %+v", g.Errors)
				}
				var d struct {
					Events struct {
						Edges []struct {
							Node walkEvent `json:"node"`
						} `json:"edges"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"events"`
				}
				if err := json.Unmarshal(g.Data, &d); err != nil {
					t.Fatal(err)
				}
				for _, e := range d.Events.Edges {
					got = append(got, e.Node.ID)
					if e.Node.Type == "webhook_endpoint.disabled" {
						checkRedacted("GraphQL events", e.Node.Data)
					}
				}
				if !d.Events.PageInfo.HasNextPage {
					break
				}
				after = d.Events.PageInfo.EndCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("GraphQL events: %d events, want %d", len(got), len(want))
			}
			for _, typ := range catalog {
				e := byType[typ]
				ok := holds(s.scopes, typ)
				node := srv.GraphQLWith(t, env, `query($id: ID!) { node(id: $id) { id ... on Event { data } } }`, map[string]any{"id": e.ID}, s.key)
				where := srv.GraphQLWith(t, env, `query($t: String!) { events(where: {type: $t}) { totalCount } }`, map[string]any{"t": typ}, s.key)
				if ok {
					if len(node.Errors) > 0 || !bytes.Contains(node.Data, []byte(e.ID)) || len(where.Errors) > 0 {
						t.Errorf("GraphQL %s: node %+v, where %+v", typ, node.Errors, where.Errors)
					}
					if typ == "webhook_endpoint.disabled" {
						checkRedacted("GraphQL node", string(node.Data))
					}
				} else {
					if len(node.Errors) == 0 || node.Errors[0].Code() != "NOT_FOUND" || bytes.Contains(node.Data, []byte(e.ID)) {
						t.Errorf("GraphQL node of a %s event: %s %+v, want NOT_FOUND", typ, node.Data, node.Errors)
					}
					if len(where.Errors) == 0 || where.Errors[0].Code() != "FORBIDDEN" {
						t.Errorf("GraphQL events(where: {type: %s}): %+v, want FORBIDDEN", typ, where.Errors)
					} else if sc, _ := where.Errors[0].Extensions["scope"].(string); !strings.Contains(where.Errors[0].Message, sc) || !slices.Contains(auth.EventTypeScopes(typ), sc) {
						t.Errorf("GraphQL FORBIDDEN for %s names %q: %s", typ, sc, where.Errors[0].Message)
					}
				}
			}
			// 3. The events subscription, replaying the log from 0.
			ids, serr := sseEvents(t, srv, env, s.key, `subscription { events(after: 0) { id } }`, len(want), 300*time.Millisecond)
			if serr != "" || !slices.Equal(ids, want) {
				t.Errorf("subscription: %d events, want %d (%s)", len(ids), len(want), serr)
			}
			for _, typ := range []string{"order.created", "hub.*", "webhook_endpoint.disabled"} {
				if holds(s.scopes, typ) {
					continue
				}
				_, serr := sseEvents(t, srv, env, s.key, `subscription { events(types: ["`+typ+`"], after: 0) { id } }`, 0, 2*time.Second)
				if !strings.HasPrefix(serr, "FORBIDDEN") || !strings.Contains(serr, auth.EventTypeScopes(typ)[0]) {
					t.Errorf("subscription to %s: %q, want FORBIDDEN naming %s", typ, serr, auth.EventTypeScopes(typ)[0])
				}
			}
			// 4. Webhook delivery: the endpoint the set's hook key registered
			// received exactly the events of the types it may read (which
			// for a hook key include webhooks:read) committed after it was.
			hookScopes := append(slices.Clone(s.scopes), "webhooks:read")
			var wantHook []string
			for _, e := range log {
				// The first start's demo_data.loaded came before every endpoint.
				if holds(hookScopes, e.Type) && e.ID != byType["demo_data.loaded"].ID {
					wantHook = append(wantHook, e.ID)
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for len(s.rc.ids()) < len(wantHook) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond) // nothing more arrives
			bodies := s.rc.ids()
			if len(bodies) != len(wantHook) {
				t.Errorf("webhook: %d deliveries, want %d", len(bodies), len(wantHook))
			}
			for _, id := range wantHook {
				b, ok := bodies[id]
				if !ok {
					t.Errorf("webhook: event %s not delivered", id)
					continue
				}
				if b["type"] == "webhook_endpoint.disabled" {
					checkRedacted("the webhook body", b)
				}
			}
			// Resending an older event is the same rule, for the key
			// asking (the revoked one cannot ask at all).
			if s == sets[0] {
				return
			}
			for _, typ := range catalog {
				resp := srv.Do(t, "POST", base+"/v1/webhook-endpoints/"+s.epID+"/resend", map[string]any{"event_id": byType[typ].ID}, s.hook)
				if holds(hookScopes, typ) {
					if resp.StatusCode != http.StatusAccepted {
						t.Errorf("resend %s: %d %s", typ, resp.StatusCode, resp.Body)
					}
				} else if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "does not exist") {
					// An event the key may not read does not exist for it
					// (its id must not tell its type), as GET /v1/events/{id}.
					t.Errorf("resend %s: %d %s, want 422 does not exist", typ, resp.StatusCode, resp.Body)
				}
			}
			if holds(hookScopes, "demo_data.loaded") {
				demo := byType["demo_data.loaded"].ID
				deadline := time.Now().Add(20 * time.Second)
				for s.rc.ids()[demo] == nil && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if s.rc.ids()[demo] == nil {
					t.Errorf("the resent demo_data.loaded was not delivered")
				}
			}
		})
	}
}
