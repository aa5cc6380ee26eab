package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/ent/idempotencykey"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// The crash tests run the real binary as child processes over the databases
// of an in-process apptest server (which made the API key and the hub and
// part the orders need) and kill them with SIGKILL at a point the test-only
// faults LOGISTICS_TEST_HOLD_AFTER_COMMIT / _BEFORE_COMMIT hold them at
// (rest.Deps.HoldAfterCommit). Everything is bounded in time.

// TestIdempotencyCrashAfterCommit: an instance commits a keyed POST
// /v1/orders and is killed before it answers. The retry — through a second
// instance on PostgreSQL, through the restarted instance on SQLite — replays
// the committed response at once, and exactly one order exists. Before, the
// retry got 409 idempotency_key_in_progress for two minutes and then created
// a second order.
func TestIdempotencyCrashAfterCommit(t *testing.T) {
	srv, bin := crashFixture(t)
	const key = "crash-after-commit"
	a := startChild(t, srv, bin, "LOGISTICS_TEST_HOLD_AFTER_COMMIT="+key)
	var b *child
	if apptest.Postgres() {
		b = startChild(t, srv, bin) // two instances at once
	}
	lost := postAsync(a.URL, srv.Keys[environment.Production], key)
	a.WaitLog(t, "holding the response after commit")
	a.Kill(t)
	if err := <-lost; err == nil {
		t.Fatal("the killed instance answered")
	}
	if b == nil {
		b = startChild(t, srv, bin) // SQLite: the instance restarted
	}
	ids := orderIDs(t, srv)
	if len(ids) != 1 {
		t.Fatalf("%d orders after the crash, want the 1 committed", len(ids))
	}
	row := srv.Env(environment.Production).DB.Client.IdempotencyKey.Query().Where(idempotencykey.Key(key)).OnlyX(context.Background())
	if row.Status != http.StatusCreated {
		t.Fatalf("the key was committed with status %d, want the response's 201", row.Status)
	}
	resp := post(t, b.URL, srv.Keys[environment.Production], key)
	if resp.status != http.StatusCreated || resp.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after the crash: %d %q %s", resp.status, resp.header.Get("Idempotent-Replayed"), resp.body)
	}
	if resp.id != ids[0] || resp.header.Get("Location") != "/v1/orders/"+ids[0] || resp.header.Get("ETag") == "" {
		t.Fatalf("the replay is not the committed order %s: %s %v", ids[0], resp.body, resp.header)
	}
	if n := len(orderIDs(t, srv)); n != 1 {
		t.Fatalf("%d orders after the retry, want 1", n)
	}
}

// TestIdempotencyCrashBeforeCommit: an instance is killed while its keyed
// POST /v1/orders has written but not committed. Nothing of it stays, and
// the retry creates the order once. On PostgreSQL a duplicate sent through
// a second instance meanwhile first waits for the running one and answers
// 409 idempotency_key_in_progress after the bounded wait (10 s); sent again
// while it waits, it runs the request as soon as the first one dies.
func TestIdempotencyCrashBeforeCommit(t *testing.T) {
	srv, bin := crashFixture(t)
	const key = "crash-before-commit"
	token := srv.Keys[environment.Production]
	a := startChild(t, srv, bin, "LOGISTICS_TEST_HOLD_BEFORE_COMMIT="+key)
	var b *child
	if apptest.Postgres() {
		b = startChild(t, srv, bin)
	}
	lost := postAsync(a.URL, token, key)
	a.WaitLog(t, "holding the transaction before commit")
	var waiting chan error
	var waited *result
	if b != nil {
		start := time.Now()
		resp := post(t, b.URL, token, key)
		if resp.status != http.StatusConflict || !strings.Contains(resp.body, "idempotency_key_in_progress") || resp.header.Get("Retry-After") != "1" {
			t.Fatalf("a duplicate while the first runs: %d %s", resp.status, resp.body)
		}
		if el := time.Since(start); el < 9*time.Second || el > 30*time.Second {
			t.Fatalf("the duplicate answered 409 after %s, want after waiting about 10 s", el)
		}
		// Sent again, it waits; the first dies; the wait ends with the
		// request run through b.
		waiting = make(chan error, 1)
		go func() {
			r, err := postE(b.URL, token, key)
			waited = r
			waiting <- err
		}()
		time.Sleep(500 * time.Millisecond)
	}
	a.Kill(t)
	if err := <-lost; err == nil {
		t.Fatal("the killed instance answered")
	}
	var resp *result
	if b == nil {
		if n := len(orderIDs(t, srv)); n != 0 {
			t.Fatalf("%d orders after a crash before commit, want 0", n)
		}
		b = startChild(t, srv, bin)
		resp = post(t, b.URL, token, key)
	} else {
		select {
		case err := <-waiting:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the waiting duplicate did not finish")
		}
		resp = waited
	}
	if resp.status != http.StatusCreated || resp.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after a crash before commit: %d %q %s", resp.status, resp.header.Get("Idempotent-Replayed"), resp.body)
	}
	ids := orderIDs(t, srv)
	if len(ids) != 1 || ids[0] != resp.id {
		t.Fatalf("orders %v, want only %s", ids, resp.id)
	}
	again := post(t, b.URL, token, key)
	if again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" || again.id != resp.id {
		t.Fatalf("second retry: %d %s", again.status, again.body)
	}
}

// crashFixture builds the binary and starts the in-process server
// (databases, key, a hub and a part).
func crashFixture(t *testing.T) (*apptest.Server, string) {
	t.Helper()
	bin := apptest.BuildBinary(t)
	srv := apptest.New(t)
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}}},
		{"/v1/parts", map[string]any{"sku": "BOLT-M8", "part_name": "Bolt"}},
	} {
		if r := srv.Do(t, "POST", srv.URL+c.path, c.body, nil); r.StatusCode != http.StatusCreated {
			t.Fatalf("%s: %d %s", c.path, r.StatusCode, r.Body)
		}
	}
	return srv, bin
}

// orderIDs lists the production orders, read straight from the database.
func orderIDs(t *testing.T, srv *apptest.Server) []string {
	t.Helper()
	var ids []string
	for _, o := range srv.Env(environment.Production).DB.Client.Order.Query().AllX(context.Background()) {
		ids = append(ids, string(o.ID))
	}
	return ids
}

const crashOrder = `{"hub":"AMS1","customer_ref":"PO-crash","lines":[{"sku":"BOLT-M8","quantity":2}]}`

type result struct {
	status int
	header http.Header
	body   string
	id     string
}

// postE sends the keyed order (at most a minute).
func postE(base, token, key string) (*result, error) {
	req, _ := http.NewRequest("POST", base+"/v1/orders", strings.NewReader(crashOrder))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	var v struct{ ID string }
	_ = json.Unmarshal(buf.Bytes(), &v)
	return &result{status: resp.StatusCode, header: resp.Header, body: buf.String(), id: v.ID}, nil
}

func post(t *testing.T, base, token, key string) *result {
	t.Helper()
	r, err := postE(base, token, key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// postAsync sends the keyed order and reports whether it got an answer.
func postAsync(base, token, key string) chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := postE(base, token, key)
		ch <- err
	}()
	return ch
}

// child is a server process of the real binary.
type child = apptest.Child

// startChild runs the binary over srv's databases on a free loopback port.
func startChild(t *testing.T, srv *apptest.Server, bin string, env ...string) *child {
	t.Helper()
	return apptest.StartChild(t, srv, bin, apptest.ChildOptions{Env: env})
}
