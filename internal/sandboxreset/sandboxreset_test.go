package sandboxreset_test

import (
	"context"
	"errors"
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
