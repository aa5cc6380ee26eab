package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// A reset empties the sandbox and loads demo data again; the key that asked,
// the console's users and the webhook endpoints survive it, and its
// sandbox.reset event comes first, before demo_data.loaded, and reaches
// the endpoints.
func TestSandboxResetKeepsKeysAndEndpoints(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.WebhookAllowPrivate = true }})
	rc := newReceiver(t, http.StatusNoContent)
	sb := s.SandboxURL
	ep := s.Create(t, environment.Sandbox, "/v1/webhook-endpoints", map[string]any{"url": rc.URL + "/hooks", "event_types": []string{"sandbox.*", "demo_data.loaded"}})
	hub := s.Create(t, environment.Sandbox, "/v1/hubs", map[string]any{"code": "ZRS1", "name": "Before the reset", "address": map[string]any{"country": "NL"}})
	session := s.Session(t, s.AdminEmail, s.AdminPassword)
	ctx := context.Background()
	before, err := s.Env(environment.Sandbox).DB.Client.Event.Query().Aggregate(ent.Max(event.FieldSequence)).Int(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		body any
	}{
		{"no confirmation", map[string]any{"scale": 0.001}},
		{"a wrong confirmation", map[string]any{"confirm": "yes"}},
		{"too large a scale", map[string]any{"confirm": "sandbox", "scale": 2}},
		{"a negative seed", map[string]any{"confirm": "sandbox", "seed": -1}},
	} {
		if r := s.Do(t, "POST", sb+"/v1/sandbox/reset", tc.body, nil); r.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s, want 422", tc.name, r.StatusCode, r.Body)
		}
	}
	if n := s.Env(environment.Sandbox).DB.Client.Hub.Query().CountX(ctx); n != 1 {
		t.Fatalf("a refused reset changed the data: %d hubs", n)
	}

	r := s.Do(t, "POST", sb+"/v1/sandbox/reset", map[string]any{"confirm": "sandbox", "scale": 0.001, "seed": 7}, nil)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("reset: %d %s", r.StatusCode, r.Body)
	}
	var res struct {
		Scale  float64        `json:"scale"`
		Seed   int64          `json:"seed"`
		Erased map[string]int `json:"erased"`
		Loaded map[string]int `json:"loaded"`
	}
	r.JSON(t, &res)
	if res.Erased["hubs"] != 1 || res.Loaded["hubs"] == 0 || res.Loaded["orders"] == 0 || res.Seed != 7 || res.Scale != 0.001 {
		t.Errorf("reset answered %s", r.Body)
	}

	// The data is the demo data; the hub made before is gone.
	if r := s.Do(t, "GET", sb+"/v1/hubs/"+hub, nil, nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("the hub made before the reset: %d", r.StatusCode)
	}
	var hubs struct {
		Data []json.RawMessage `json:"data"`
	}
	s.Do(t, "GET", sb+"/v1/hubs", nil, nil).JSON(t, &hubs)
	if len(hubs.Data) != res.Loaded["hubs"] {
		t.Errorf("hubs after the reset: %d, loaded %d", len(hubs.Data), res.Loaded["hubs"])
	}
	// The key (it made these requests), the endpoint and the console user survive.
	if r := s.Do(t, "GET", sb+"/v1/webhook-endpoints/"+ep, nil, nil); r.StatusCode != http.StatusOK {
		t.Errorf("the endpoint after the reset: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, "GET", sb+"/v1/status", nil, session); r.StatusCode != http.StatusOK {
		t.Errorf("the console session after the reset: %d", r.StatusCode)
	}

	// sandbox.reset is the first event after those before it, demo_data.loaded the next.
	var evs struct {
		Data []struct {
			Type     string `json:"type"`
			Sequence int    `json:"sequence"`
			Data     struct {
				Object map[string]any `json:"object"`
			} `json:"data"`
		} `json:"data"`
	}
	s.Do(t, "GET", sb+"/v1/events?after="+strconv.Itoa(before), nil, nil).JSON(t, &evs)
	if len(evs.Data) != 2 || evs.Data[0].Type != "sandbox.reset" || evs.Data[1].Type != "demo_data.loaded" {
		t.Fatalf("events after the reset: %+v", evs.Data)
	}
	if erased, _ := evs.Data[0].Data.Object["erased"].(map[string]any); erased["hubs"] != float64(1) {
		t.Errorf("sandbox.reset's object: %v", evs.Data[0].Data.Object)
	}
	got := rc.byType(t, []string{"sandbox.reset", "demo_data.loaded"}, 20*time.Second)
	if len(got["sandbox.reset"]) != 1 || len(got["demo_data.loaded"]) != 1 {
		t.Errorf("delivered: %d sandbox.reset, %d demo_data.loaded", len(got["sandbox.reset"]), len(got["demo_data.loaded"]))
	}

	// The same scale and seed give the same data again.
	var first struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	s.Do(t, "GET", sb+"/v1/hubs?sort=code&limit=1", nil, nil).JSON(t, &first)
	if r := s.Do(t, "POST", sb+"/v1/sandbox/reset", map[string]any{"confirm": "sandbox", "scale": 0.001, "seed": 7}, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("second reset: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, "GET", sb+"/v1/hubs/"+first.Data[0].ID, nil, nil); r.StatusCode != http.StatusOK {
		t.Errorf("the same seed loaded other hubs: %d", r.StatusCode)
	}
}

// Production has no sandbox-only door: 404 whatever the caller holds, and a
// sandbox key needs sandbox:write.
func TestSandboxOnlyDoorsInProduction(t *testing.T) {
	s := apptest.New(t)
	ctx := context.Background()
	key := func(env environment.Name, scopes ...string) http.Header {
		secret, _, err := s.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "limited", Environment: env, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Bearer(secret)
	}
	body := map[string]any{"confirm": "sandbox", "scale": 0.001}
	for name, h := range map[string]http.Header{"an all-scope key": nil, "a key without sandbox:write": key(environment.Production, "hubs:read")} {
		if r := s.Do(t, "POST", s.URL+"/v1/sandbox/reset", body, h); r.StatusCode != http.StatusNotFound {
			t.Errorf("production, %s: %d %s, want 404", name, r.StatusCode, r.Body)
		}
	}
	if r := s.Do(t, "POST", s.SandboxURL+"/v1/sandbox/reset", body, key(environment.Sandbox, "hubs:read", "hubs:write")); r.StatusCode != http.StatusForbidden {
		t.Errorf("sandbox, a key without sandbox:write: %d %s, want 403", r.StatusCode, r.Body)
	}
	q := `mutation { resetSandbox(input: {confirm: "sandbox", scale: 0.001}) { scale } }`
	if r := s.GraphQL(t, environment.Production, q, nil); len(r.Errors) == 0 || r.Errors[0].Code() != "NOT_FOUND" {
		t.Errorf("production, GraphQL resetSandbox: %+v, want NOT_FOUND", r.Errors)
	}
	if n := s.Env(environment.Production).DB.Client.Event.Query().Where(event.Type("sandbox.reset")).CountX(ctx); n != 0 {
		t.Errorf("production recorded %d sandbox.reset events", n)
	}
}

// GraphQL's doors: resetSandbox in the sandbox, and a test event of a
// catalog type through sendWebhookTestEvent.
func TestSandboxResetAndTestEventsThroughGraphQL(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.WebhookAllowPrivate = true }})
	if r := s.GraphQL(t, environment.Sandbox, `mutation { resetSandbox(input: {confirm: "no"}) { scale } }`, nil); len(r.Errors) == 0 {
		t.Error("resetSandbox without the confirmation succeeded")
	}
	var out struct {
		ResetSandbox struct {
			Seed   int `json:"seed"`
			Loaded struct {
				Hubs int `json:"hubs"`
			} `json:"loaded"`
		} `json:"resetSandbox"`
	}
	s.MustGraphQL(t, environment.Sandbox, `mutation { resetSandbox(input: {confirm: "sandbox", scale: 0.001, seed: 5}) { seed loaded { hubs } } }`, nil, &out)
	if out.ResetSandbox.Seed != 5 || out.ResetSandbox.Loaded.Hubs == 0 {
		t.Errorf("resetSandbox: %+v", out)
	}
	rc := newReceiver(t, http.StatusNoContent)
	ep := s.Create(t, environment.Sandbox, "/v1/webhook-endpoints", map[string]any{"url": rc.URL + "/hooks", "event_types": []string{"webhook.test"}})
	var sent struct {
		SendWebhookTestEvent struct {
			EventType string `json:"eventType"`
		} `json:"sendWebhookTestEvent"`
	}
	s.MustGraphQL(t, environment.Sandbox, `mutation($id: ID!) { sendWebhookTestEvent(endpointId: $id, type: "hub.created") { eventType } }`, map[string]any{"id": ep}, &sent)
	if sent.SendWebhookTestEvent.EventType != "hub.created" {
		t.Errorf("sendWebhookTestEvent: %+v", sent)
	}
	if r := s.GraphQL(t, environment.Sandbox, `mutation($id: ID!) { sendWebhookTestEvent(endpointId: $id, type: "hub.exploded") { eventType } }`, map[string]any{"id": ep}); len(r.Errors) == 0 {
		t.Error("a test event of a type outside the catalog was sent")
	}
	got := rc.byType(t, []string{"hub.created"}, 20*time.Second)["hub.created"]
	if len(got) != 1 || !strings.Contains(string(got[0].body), `"test":true`) {
		t.Errorf("delivered: %d hub.created test events", len(got))
	}
}
