package webhooks_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"logistics/ent/webhookdelivery"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/standardwebhooks"
)

// TestEndpointChangesReachWarmCaches: the fan-out keeps the enabled
// endpoints in memory, yet every endpoint change committed before a write
// decides that write's deliveries — also on another instance whose set was
// read before the change (PostgreSQL: a twin over the same database; SQLite:
// the one instance). Creating, disabling, enabling, narrowing the event
// types and deleting are each followed by a write on the instance that did
// not make the change.
func TestEndpointChangesReachWarmCaches(t *testing.T) {
	a := apptest.New(t, apptest.Options{Config: allowPrivate})
	b := a
	if apptest.Postgres() {
		b = a.Twin(t)
	}
	rc := newReceiver(t)
	first := createEndpoint(t, a, rc.URL+"/first")
	hubs := 0
	// write creates a hub through b and returns, per endpoint, how many
	// deliveries its hub.created event got.
	write := func(eps ...resourceid.ID) []int {
		t.Helper()
		hubs++
		id := createHub(t, b, fmt.Sprintf("WC%02d", hubs))
		ev := eventOf(t, b, "hub.created", id)
		ctx := b.Ctx(environment.Production)
		out := make([]int, len(eps))
		for i, ep := range eps {
			n, err := b.Env(environment.Production).DB.Client.WebhookDelivery.Query().
				Where(webhookdelivery.EventID(ev), webhookdelivery.EndpointID(ep)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = n
		}
		return out
	}
	patch := func(id resourceid.ID, body map[string]any) {
		t.Helper()
		resp := a.Do(t, http.MethodPatch, a.URL+"/v1/webhook-endpoints/"+string(id), body, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("PATCH %v: %d %s", body, resp.StatusCode, resp.Body)
		}
	}
	if got := write(first.ID); got[0] != 1 {
		t.Fatalf("first endpoint: %d deliveries", got[0]) // b's set is read now
	}
	second := createEndpoint(t, a, rc.URL+"/second")
	if got := write(first.ID, second.ID); got[0] != 1 || got[1] != 1 {
		t.Errorf("after creating an endpoint on the other instance: deliveries %v, want [1 1]", got)
	}
	patch(second.ID, map[string]any{"enabled": false})
	if got := write(first.ID, second.ID); got[0] != 1 || got[1] != 0 {
		t.Errorf("after disabling it: deliveries %v, want [1 0]", got)
	}
	patch(second.ID, map[string]any{"enabled": true})
	if got := write(first.ID, second.ID); got[0] != 1 || got[1] != 1 {
		t.Errorf("after enabling it again: deliveries %v, want [1 1]", got)
	}
	patch(first.ID, map[string]any{"event_types": []string{"order.*"}})
	if got := write(first.ID, second.ID); got[0] != 0 || got[1] != 1 {
		t.Errorf("after narrowing the first's event types: deliveries %v, want [0 1]", got)
	}
	if resp := a.Do(t, http.MethodDelete, a.URL+"/v1/webhook-endpoints/"+string(second.ID), nil, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d %s", resp.StatusCode, resp.Body)
	}
	// A set still holding the deleted endpoint would fail the write (the
	// delivery's foreign key) or queue a delivery nobody can see.
	if got := write(second.ID); got[0] != 0 {
		t.Errorf("after deleting it: deliveries %v, want [0]", got)
	}
}

// TestWarmFanOutReadsNoEndpoints: a writing transaction whose environment's
// endpoints have not changed since the last one sends no statement for
// them; the next after a change reads them once.
func TestWarmFanOutReadsNoEndpoints(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap, Config: allowPrivate})
	rc := newReceiver(t)
	createEndpoint(t, srv, rc.URL)
	readsEndpoints := func() (n int, stmts []string) {
		for _, q := range counter.Statements() {
			if strings.Contains(q, "FROM `webhook_endpoints`") || strings.Contains(q, `FROM "webhook_endpoints"`) {
				n++
			}
		}
		return n, counter.Statements()
	}
	for i, want := range []int{1, 0, 0} { // the first after the endpoint's creation reads them
		counter.Reset()
		createHub(t, srv, fmt.Sprintf("WF%d", i))
		if n, stmts := readsEndpoints(); n != want {
			t.Errorf("write %d: %d statements read the endpoints, want %d:\n%s", i, n, want, strings.Join(stmts, "\n"))
		}
	}
	t.Logf("a hub's creation with the endpoints known: %d statements", counter.Count())
}

// TestEndpointWrittenOutsideTransactionRefused: an endpoint change commits
// with its stamp, so ent refuses one outside a transaction.
func TestEndpointWrittenOutsideTransactionRefused(t *testing.T) {
	srv := apptest.New(t)
	ctx := srv.Ctx(environment.Production)
	_, err := srv.Env(environment.Production).DB.Client.WebhookEndpoint.Create().
		SetURL("https://example.com/hooks").SetSecret(standardwebhooks.NewSecret()).Save(ctx)
	if err == nil || !strings.Contains(err.Error(), "transaction") {
		t.Fatalf("err = %v, want a refusal", err)
	}
}
