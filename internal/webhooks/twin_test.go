package webhooks_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"logistics/ent/event"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// TestTwoInstancesShareDeliveries: two instances over one PostgreSQL
// database both deliver; every event arrives, and duplicates are counted
// (none expected in normal operation: a claimed delivery is leased to one
// instance). PostgreSQL only (SQLite runs one instance).
func TestTwoInstancesShareDeliveries(t *testing.T) {
	if !apptest.Postgres() {
		t.Skip("needs " + apptest.PostgresEnv)
	}
	a := apptest.New(t, apptest.Options{Config: allowPrivate})
	b := a.Twin(t)
	rc := newReceiver(t)
	rc.delay = 5 * time.Millisecond
	ep := createEndpoint(t, a, rc.URL)
	rc.accept(ep.Secret)
	const n = 200
	var wg sync.WaitGroup
	for w := range 8 {
		srv := []*apptest.Server{a, b}[w%2]
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				createHub(t, srv, fmt.Sprintf("T%04d", i))
			}
		})
	}
	wg.Wait()
	ctx := a.Ctx(environment.Production)
	evs, err := a.Env(environment.Production).DB.Client.Event.Query().Where(event.Type("hub.created")).All(ctx)
	if err != nil || len(evs) != n {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = string(e.ID)
	}
	waitFor(t, 60*time.Second, "every event delivered", func() bool { return rc.received(ids) == n })
	time.Sleep(300 * time.Millisecond) // let a late duplicate show
	aAttempts, _ := a.App.Webhooks.Counts()
	bAttempts, _ := b.App.Webhooks.Counts()
	dups := rc.duplicates()
	t.Logf("%d events delivered; attempts by instance A %d, by B %d; duplicates %d", n, aAttempts, bAttempts, dups)
	if dups != 0 {
		t.Errorf("%d duplicate deliveries in normal operation", dups)
	}
	if aAttempts == 0 || bAttempts == 0 {
		t.Errorf("one instance did all the work (A %d, B %d)", aAttempts, bAttempts)
	}
	if rc.badSig != 0 {
		t.Errorf("%d bad signatures", rc.badSig)
	}
}
