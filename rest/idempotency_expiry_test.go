package rest_test

import (
	"net/http"
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
