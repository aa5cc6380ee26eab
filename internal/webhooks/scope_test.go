package webhooks_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"logistics/ent/event"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
)

// TestWriteOnlyKeyReceivesNothingItCannotRead: a webhooks:write key (no
// other scope) may not register an endpoint for a type it cannot read, nor
// for every type, nor repoint one that receives such a type, nor resend such
// an event, through REST or GraphQL; each 403 names the missing scope.
func TestWriteOnlyKeyReceivesNothingItCannotRead(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	ctx := srv.Ctx(environment.Production)
	secret, _, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "hooks", Environment: environment.Production, Scopes: []string{"webhooks:write"}})
	if err != nil {
		t.Fatal(err)
	}
	writer := apptest.Bearer(secret)
	rc := newReceiver(t)
	base := srv.URL + "/v1/webhook-endpoints"
	forbidden := func(what string, resp *apptest.Response, scope string) {
		t.Helper()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(resp.Body), `"scope":"`+scope+`"`) ||
			!strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="`+scope+`"`) {
			t.Errorf("%s: %d %s (WWW-Authenticate %q), want 403 naming %s", what, resp.StatusCode, resp.Body, resp.Header.Get("WWW-Authenticate"), scope)
		}
	}
	forbidden("register for hub.created", srv.Do(t, "POST", base, map[string]any{"url": rc.URL, "event_types": []string{"hub.created"}}, writer), "hubs:read")
	forbidden("register for order.*", srv.Do(t, "POST", base, map[string]any{"url": rc.URL, "event_types": []string{"order.*"}}, writer), "orders:read")
	forbidden("register for every type", srv.Do(t, "POST", base, map[string]any{"url": rc.URL}, writer), "hubs:read")
	forbidden("register for *", srv.Do(t, "POST", base, map[string]any{"url": rc.URL, "event_types": []string{"*"}}, writer), "hubs:read")
	forbidden("register for an unknown type", srv.Do(t, "POST", base, map[string]any{"url": rc.URL, "event_types": []string{"invoice.paid"}}, writer), "hubs:read")

	// An endpoint an administrator registered for hubs: the key may not
	// repoint it, change it, nor resend an older hub event to it.
	ep := createEndpoint(t, srv, rc.URL, "hub.*")
	hub := createHub(t, srv, "WO1")
	ev := eventOf(t, srv, "hub.created", hub)
	forbidden("repoint", srv.Do(t, "PATCH", base+"/"+string(ep.ID), map[string]any{"url": rc.URL + "/mine"}, writer), "hubs:read")
	forbidden("enable", srv.Do(t, "PATCH", base+"/"+string(ep.ID), map[string]any{"enabled": true}, writer), "hubs:read")
	// An event the key may not read does not exist for it: its id must not
	// tell its type (GET /v1/events/{id} answers 404 alike).
	if resp := srv.Do(t, "POST", base+"/"+string(ep.ID)+"/resend", map[string]any{"event_id": ev}, writer); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(string(resp.Body), "does not exist") || strings.Contains(string(resp.Body), "hub.created") {
		t.Errorf("resend: %d %s, want 422 does not exist, without the type", resp.StatusCode, resp.Body)
	}
	waitFor(t, 10*time.Second, "the hub event", func() bool { return len(deliveries(t, srv, ep.ID, "")) == 1 })
	d := deliveries(t, srv, ep.ID, "")[0]
	forbidden("resend a delivery", srv.Do(t, "POST", base+"/"+string(ep.ID)+"/resend", map[string]any{"delivery_id": d.ID}, writer), "hubs:read")

	// GraphQL: the same rule (the mutations share the manager).
	g := srv.GraphQLWith(t, environment.Production, `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["hub.created"]}) { secret } }`,
		map[string]any{"url": rc.URL}, writer)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "FORBIDDEN" || g.Errors[0].Extensions["scope"] != "hubs:read" {
		t.Errorf("GraphQL createWebhookEndpoint: %s %+v", g.Data, g.Errors)
	}
	g = srv.GraphQLWith(t, environment.Production, `mutation($ep: ID!, $ev: ID!) { resendWebhookEvent(endpointId: $ep, eventId: $ev) { id } }`,
		map[string]any{"ep": ep.ID, "ev": ev}, writer)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_USER_INPUT" || !strings.Contains(g.Errors[0].Message, "does not exist") {
		t.Errorf("GraphQL resendWebhookEvent: %s %+v", g.Data, g.Errors)
	}
	if eps, err := srv.App.Webhooks.List(ctx); err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %d %v, want only the administrator's", len(eps), err)
	}

	// What it may read: webhook endpoint events (webhooks:write implies
	// webhooks:read).
	mine := srv.Do(t, "POST", base, map[string]any{"url": rc.URL, "event_types": []string{"webhook_endpoint.*"}}, writer)
	if mine.StatusCode != http.StatusCreated {
		t.Fatalf("register for webhook_endpoint.*: %d %s", mine.StatusCode, mine.Body)
	}
}

// TestEndpointEventRedactsTheURL: the webhook_endpoint.disabled event never
// shows the endpoint's query string (nor its userinfo): not in the log (REST,
// GraphQL), not in the delivery to another endpoint; an event stored before
// the redaction is shown redacted too. The management API keeps the URL.
func TestEndpointEventRedactsTheURL(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	ctx := srv.Ctx(environment.Production)
	watcher := newReceiver(t)
	w := createEndpoint(t, srv, watcher.URL, "webhook_endpoint.*")
	watcher.accept(w.Secret)
	gone := newReceiver(t)
	gone.answer = func(int) int { return http.StatusGone }
	ep := createEndpoint(t, srv, gone.URL+"/in?token=s3cr3t&tenant=acme", "hub.created")
	gone.accept(ep.Secret)
	createHub(t, srv, "RX1")
	var evID string
	waitFor(t, 10*time.Second, "webhook_endpoint.disabled", func() bool {
		e, err := srv.Env(environment.Production).DB.Client.Event.Query().Where(event.Type("webhook_endpoint.disabled")).Only(ctx)
		if err == nil {
			evID = string(e.ID)
		}
		return err == nil
	})
	leaks := func(b []byte) bool {
		return bytes.Contains(b, []byte("s3cr3t")) || bytes.Contains(b, []byte("acme")) || !bytes.Contains(b, []byte("/in?token=REDACTED"))
	}
	// Stored redacted.
	stored, _ := srv.Env(environment.Production).DB.Client.Event.Get(ctx, resourceid.ID(evID))
	if u, _ := stored.Data["object"].(map[string]any)["url"].(string); u != gone.URL+"/in?token=REDACTED&tenant=REDACTED" {
		t.Errorf("stored url %q", u)
	}
	if r := srv.Do(t, "GET", srv.URL+"/v1/events/"+evID, nil, nil); r.StatusCode != 200 || leaks(r.Body) {
		t.Errorf("REST: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.Do(t, "GET", srv.URL+"/v1/events?types[]=webhook_endpoint.disabled", nil, nil); r.StatusCode != 200 || leaks(r.Body) {
		t.Errorf("REST list: %d %s", r.StatusCode, r.Body)
	}
	if g := srv.GraphQL(t, environment.Production, `{ events(where: {type: "webhook_endpoint.disabled"}) { edges { node { data } } } }`, nil); len(g.Errors) > 0 || leaks(g.Data) {
		t.Errorf("GraphQL: %s %+v", g.Data, g.Errors)
	}
	waitFor(t, 10*time.Second, "the delivery of the event", func() bool { return watcher.count(evID) == 1 })
	watcher.mu.Lock()
	body := watcher.bodies[evID]
	watcher.mu.Unlock()
	if u := body["data"].(map[string]any)["object"].(map[string]any)["url"]; u != gone.URL+"/in?token=REDACTED&tenant=REDACTED" {
		t.Errorf("delivered url %v", u)
	}
	// The management API shows the URL as registered.
	if r := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID), nil, nil); !bytes.Contains(r.Body, []byte(`token=s3cr3t\u0026tenant=acme`)) {
		t.Errorf("GET endpoint: %s", r.Body)
	}
	// A row stored with the whole URL (before the redaction) is shown
	// redacted by every door.
	data := stored.Data
	obj := data["object"].(map[string]any)
	obj["url"] = "https://user:pw@hooks.example/in?token=s3cr3t&tenant=acme#frag"
	raw, _ := json.Marshal(data)
	db := srv.Env(environment.Production).DB
	q := "UPDATE events SET data = ? WHERE id = ?"
	if db.Dialect == dialect.Postgres {
		q = "UPDATE events SET data = $1 WHERE id = $2"
	}
	if _, err := db.SQL.ExecContext(ctx, q, string(raw), evID); err != nil {
		t.Fatal(err)
	}
	want := []byte(`"url":"https://hooks.example/in?token=REDACTED\u0026tenant=REDACTED"`)
	if r := srv.Do(t, "GET", srv.URL+"/v1/events/"+evID, nil, nil); !bytes.Contains(r.Body, want) || bytes.Contains(r.Body, []byte("pw@")) {
		t.Errorf("REST of an old row: %s", r.Body)
	}
	g := srv.GraphQL(t, environment.Production, `query($id: ID!) { node(id: $id) { ... on Event { data } } }`, map[string]any{"id": evID})
	if bytes.Contains(g.Data, []byte("s3cr3t")) || bytes.Contains(g.Data, []byte("pw@")) || !bytes.Contains(g.Data, []byte("token=REDACTED")) {
		t.Errorf("GraphQL node of an old row: %s", g.Data)
	}
}
