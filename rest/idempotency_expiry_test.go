package rest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/apitoken"
	"logistics/ent/idempotencykey"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// TestIdempotencyKeysExpire: a key is remembered for 24 hours; after that
// the same key is free for a new request, and expired keys are deleted.
func TestIdempotencyKeysExpire(t *testing.T) {
	srv := apptest.New(t)
	ctx := srv.Ctx(environment.Production)
	db := ent.FromContext(ctx)
	old := time.Now().Add(-25 * time.Hour)
	// Keys are stored per caller: the test's key is the apptest token.
	tokens := srv.App.Envs.Production().DB.Client.APIToken
	principal := string(tokens.Query().Where(apitoken.Name("apptest production")).OnlyX(ctx).ID)
	for _, k := range []string{"reused-after-a-day", "forgotten"} {
		db.IdempotencyKey.Create().SetPrincipal(principal).SetKey(k).SetMethod("POST").SetPath("/v1/hubs").
			SetRequestHash("another request").SetStatus(201).SetCreatedAt(old).ExecX(ctx)
	}
	resp := srv.Do(t, http.MethodPost, srv.URL+"/v1/hubs", map[string]any{"code": "RTM2", "name": "R", "address": map[string]any{"country": "NL"}},
		http.Header{"Idempotency-Key": {"reused-after-a-day"}})
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("an expired key was not free again: %d %s", resp.StatusCode, resp.Body)
	}
	// A key of the same age that nobody retried went in the sweep that the
	// first claim on this server ran.
	if n := db.IdempotencyKey.Query().Where(idempotencykey.CreatedAtLT(time.Now().Add(-24 * time.Hour))).CountX(ctx); n != 0 {
		t.Fatalf("%d expired keys left", n)
	}
}

// TestIdempotencyDuplicatesAcrossInstances: duplicates sent at once through
// two instances over the same database create once; every one answers 201
// with the same body, all but one replayed (before, the others got 409
// idempotency_key_in_progress).
func TestIdempotencyDuplicatesAcrossInstances(t *testing.T) {
	a := apptest.New(t)
	b := a.Twin(t)
	key := http.Header{"Idempotency-Key": {"across"}}
	body := map[string]any{"code": "TWN1", "name": "Twin", "address": map[string]any{"country": "NL"}}
	resps := make([]*apptest.Response, 10)
	var wg sync.WaitGroup
	for i := range resps {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = s.Do(t, http.MethodPost, s.URL+"/v1/hubs", body, key)
		}()
	}
	wg.Wait()
	fresh := 0
	for _, r := range resps {
		if r.StatusCode != http.StatusCreated || string(r.Body) != string(resps[0].Body) {
			t.Fatalf("duplicate: %d %s (first: %s)", r.StatusCode, r.Body, resps[0].Body)
		}
		if r.Header.Get("Idempotent-Replayed") == "" {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d duplicates ran, want 1", fresh)
	}
	if n := ent.FromContext(a.Ctx(environment.Production)).Hub.Query().CountX(context.Background()); n != 1 {
		t.Fatalf("%d hubs, want 1", n)
	}
}

// TestIdempotencyLegacyClaims: a key claimed by a version before claims were
// transactional (a committed row with status 0, whose request may still be
// running on an old instance during an upgrade) answers 409 for two minutes,
// then is taken over.
func TestIdempotencyLegacyClaims(t *testing.T) {
	srv := apptest.New(t)
	ctx := srv.Ctx(environment.Production)
	db := ent.FromContext(ctx)
	tokens := srv.App.Envs.Production().DB.Client.APIToken
	principal := string(tokens.Query().Where(apitoken.Name("apptest production")).OnlyX(ctx).ID)
	body := `{"code":"LEG1","name":"L","address":{"country":"NL"}}`
	sum := sha256.Sum256([]byte("POST /v1/hubs\n" + body)) // the request's fingerprint (rest/idempotency.go)
	for _, c := range []struct {
		key  string
		age  time.Duration
		want int
	}{
		{"legacy-running", 10 * time.Second, http.StatusConflict},
		{"legacy-dead", 3 * time.Minute, http.StatusCreated},
	} {
		db.IdempotencyKey.Create().SetPrincipal(principal).SetKey(c.key).SetMethod("POST").SetPath("/v1/hubs").
			SetRequestHash(hex.EncodeToString(sum[:])).SetStatus(0).SetCreatedAt(time.Now().Add(-c.age)).ExecX(ctx)
		resp := srv.Do(t, http.MethodPost, srv.URL+"/v1/hubs", body, http.Header{"Idempotency-Key": {c.key}, "Content-Type": {"application/json"}})
		if resp.StatusCode != c.want {
			t.Fatalf("%s: %d %s, want %d", c.key, resp.StatusCode, resp.Body, c.want)
		}
	}
}
