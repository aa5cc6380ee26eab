package sandboxreset_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"logistics/ent/event"
	"logistics/ent/webhookdelivery"
	"logistics/internal/app"
	"logistics/internal/apperr"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/sandboxreset"
)

// A reset that fails after it has erased the data and written the new
// leaves the old data, records no event and queues no delivery: one
// transaction. (A process killed in the middle is the same rolled-back
// transaction: SQLite drops an uncommitted one from its log, PostgreSQL
// when the connection goes.)
func TestFailedResetLeavesTheOldData(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.WebhookAllowPrivate = true }})
	ctx := s.Ctx(environment.Sandbox)
	s.Create(t, environment.Sandbox, "/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hooks", "event_types": []string{"*"}})
	hub := s.Create(t, environment.Sandbox, "/v1/hubs", map[string]any{"code": "ZRF1", "name": "Kept", "address": map[string]any{"country": "NL"}})
	c := s.Env(environment.Sandbox).DB.Client
	events := c.Event.Query().CountX(ctx)

	for _, fail := range []func(context.Context) error{
		func(context.Context) error { return errors.New("the disk is full") },
		func(ctx context.Context) error {
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			return cancelled.Err()
		},
	} {
		undo := sandboxreset.SetAfterLoad(fail)
		_, err := sandboxreset.Reset(ctx, s.Env(environment.Sandbox), sandboxreset.Options{Confirm: sandboxreset.Confirm, Scale: 0.001})
		undo()
		if err == nil {
			t.Fatal("the reset did not fail")
		}
		if n := c.Hub.Query().CountX(ctx); n != 1 {
			t.Errorf("after a failed reset: %d hubs, want the one made before", n)
		}
		if _, err := c.Hub.Get(ctx, resourceid.ID(hub)); err != nil {
			t.Errorf("the hub made before: %v", err)
		}
		if n := c.Event.Query().CountX(ctx); n != events {
			t.Errorf("a failed reset left %d events, want %d", n, events)
		}
		if n := c.Event.Query().Where(event.Type(sandboxreset.EventType)).CountX(ctx); n != 0 {
			t.Errorf("a failed reset recorded %d sandbox.reset events", n)
		}
		if n := c.WebhookDelivery.Query().Where(webhookdelivery.EventType(sandboxreset.EventType)).CountX(ctx); n != 0 {
			t.Errorf("a failed reset queued %d deliveries", n)
		}
	}
}

// Reset refuses production, whoever calls it (the CLI included): 404.
func TestResetRefusesProduction(t *testing.T) {
	s := apptest.New(t)
	_, err := sandboxreset.Reset(context.Background(), s.Env(environment.Production), sandboxreset.Options{Confirm: sandboxreset.Confirm, Scale: 0.001})
	if e := apperr.From(err); e == nil || e.Kind != apperr.KindNotFound {
		t.Errorf("reset of production: %v, want not found", err)
	}
}

// A reset erases the idempotency keys of the writes it erases: the same
// keyed POST after it creates anew instead of replaying a response about a
// hub that is gone. The keys of what survives a reset still replay: the
// clock's, and the keyed reset's own (a retry of it must not reset twice).
func TestResetErasesTheKeysOfErasedWrites(t *testing.T) {
	s := apptest.New(t)
	sb := s.SandboxURL
	keyed := func(key string) http.Header { return http.Header{"Idempotency-Key": {key}} }
	hubBody := map[string]any{"code": "ZIK1", "name": "Keyed", "address": map[string]any{"country": "NL"}}
	post := func(path string, body any, key string) (*apptest.Response, string) {
		t.Helper()
		r := s.Do(t, http.MethodPost, sb+path, body, keyed(key))
		if r.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %s", path, r.StatusCode, r.Body)
		}
		var out struct{ ID string }
		_ = json.Unmarshal(r.Body, &out)
		return r, out.ID
	}

	_, first := post("/v1/hubs", hubBody, "hub-1")
	if r, again := post("/v1/hubs", hubBody, "hub-1"); r.Header.Get("Idempotent-Replayed") != "true" || again != first {
		t.Fatalf("before the reset the key replays: %s, %s", r.Header.Get("Idempotent-Replayed"), again)
	}
	post("/v1/sandbox/clock/freeze", map[string]any{}, "freeze-1")
	resetBody := map[string]any{"confirm": sandboxreset.Confirm, "scale": 0.001}
	post("/v1/sandbox/reset", resetBody, "reset-1")

	r, second := post("/v1/hubs", hubBody, "hub-1")
	if r.StatusCode != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" || second == first {
		t.Fatalf("after the reset the same keyed POST answered %d (replayed %q) with %s, want a new hub", r.StatusCode, r.Header.Get("Idempotent-Replayed"), second)
	}
	if g := s.Do(t, http.MethodGet, sb+"/v1/hubs/"+second, nil, nil); g.StatusCode != http.StatusOK {
		t.Errorf("the hub created after the reset: %d", g.StatusCode)
	}
	if r, _ := post("/v1/sandbox/clock/freeze", map[string]any{}, "freeze-1"); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the clock's key after the reset: not replayed")
	}
	if r, _ := post("/v1/sandbox/reset", resetBody, "reset-1"); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the reset's own key: not replayed")
	}
	if g := s.Do(t, http.MethodGet, sb+"/v1/hubs/"+second, nil, nil); g.StatusCode != http.StatusOK {
		t.Errorf("the retried reset ran again: the hub created after the first is %d", g.StatusCode)
	}
}

// Every POST that honours Idempotency-Key writes either data a reset erases
// (ErasedPaths: its keys go) or data that survives one (its keys stay): a
// new keyed route must be placed on one side.
func TestEveryKeyedPostIsPlaced(t *testing.T) {
	survive := []string{"/v1/workflows", "/v1/webhook-endpoints", "/v1/sandbox"}
	s := apptest.New(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	s.Do(t, http.MethodGet, s.URL+"/v1/openapi.json", nil, apptest.Anonymous()).JSON(t, &doc)
	under := func(path string, list []string) bool {
		return slices.ContainsFunc(list, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
	}
	keyed := 0
	for path, ops := range doc.Paths {
		for _, p := range ops["post"].Parameters {
			if p.Name != "Idempotency-Key" {
				continue
			}
			keyed++
			if !under(path, sandboxreset.ErasedPaths) && !under(path, survive) {
				t.Errorf("POST %s honours Idempotency-Key: add it to sandboxreset.ErasedPaths (a reset erases what it writes) or to this test's survivors", path)
			}
		}
	}
	if keyed == 0 {
		t.Fatal("no POST honours Idempotency-Key in the document")
	}
}
