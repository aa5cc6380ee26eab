package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/dbtest"
	"logistics/internal/environment"
	"logistics/internal/postgres"
)

// replicaReady is /readyz with the replicas' member.
type replicaReady struct {
	Ready    bool `json:"ready"`
	Replicas map[string]struct {
		State      string  `json:"state"`
		Serving    bool    `json:"serving"`
		LagSeconds float64 `json:"lag_seconds"`
		Replayed   string  `json:"replayed_lsn"`
		Error      string  `json:"error"`
	} `json:"replicas"`
}

func readReady(t *testing.T, s *apptest.Server) (int, replicaReady) {
	t.Helper()
	r := s.Do(t, http.MethodGet, s.URL+"/readyz", nil, apptest.Anonymous())
	var out replicaReady
	r.JSON(t, &out)
	return r.StatusCode, out
}

// waitReplica polls /readyz until the production replica's member
// satisfies ok.
func waitReplica(t *testing.T, s *apptest.Server, what string, ok func(state string, lag float64, replayed postgres.LSN) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, out := readReady(t, s)
		m := out.Replicas["production"]
		lsn, _ := postgres.ParseLSN(m.Replayed)
		if ok(m.State, m.LagSeconds, lsn) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never %s: /readyz says %+v", what, m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hubCount is the hub count GET path answers (an aggregate, a list or an
// export) with header.
func hubCount(t *testing.T, s *apptest.Server, path string, header http.Header) int {
	t.Helper()
	r := s.Do(t, http.MethodGet, s.URL+path, nil, header)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.StatusCode, r.Body)
	}
	switch {
	case strings.Contains(path, "/aggregate/export"):
		lines := strings.Split(strings.TrimSpace(string(r.Body)), "\n")
		n, err := strconv.Atoi(strings.TrimSpace(lines[len(lines)-1]))
		if len(lines) != 2 || err != nil {
			t.Fatalf("GET %s: %s", path, r.Body)
		}
		return n
	case strings.Contains(path, "/aggregate"):
		var out struct{ Data []struct{ Count int } }
		r.JSON(t, &out)
		if len(out.Data) != 1 {
			t.Fatalf("GET %s: %s", path, r.Body)
		}
		return out.Data[0].Count
	case strings.Contains(path, "/export"), strings.Contains(path, "format=csv"):
		return strings.Count(strings.TrimSpace(string(r.Body)), "\n") // lines after the header
	}
	var out struct{ Data []json.RawMessage }
	r.JSON(t, &out)
	return len(out.Data)
}

// gqlHubCount is the count a GraphQL query answers with header: query
// selects data.<field> as either [{count}] (an aggregate) or {totalCount}.
func gqlHubCount(t *testing.T, s *apptest.Server, query string, header http.Header) int {
	t.Helper()
	r := s.Do(t, http.MethodPost, s.URL+"/graphql", map[string]any{"query": query}, header)
	var out struct {
		Data struct {
			HubAggregate []struct{ Count int }
			Hubs         struct{ TotalCount int }
		}
		Errors []apptest.GQLError
	}
	if r.JSON(t, &out); r.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		t.Fatalf("graphql %s: %d %s", query, r.StatusCode, r.Body)
	}
	if strings.Contains(query, "hubAggregate") {
		return out.Data.HubAggregate[0].Count
	}
	return out.Data.Hubs.TotalCount
}

func createHub(t *testing.T, s *apptest.Server, code string, header http.Header) *apptest.Response {
	t.Helper()
	r := s.Do(t, http.MethodPost, s.URL+"/v1/hubs", map[string]any{"code": code, "name": code, "address": map[string]any{"country": "NL"}}, header)
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/hubs: %d %s", r.StatusCode, r.Body)
	}
	return r
}

// TestReadReplicas runs the service over a PostgreSQL primary and a
// streaming replica that the test builds (initdb, pg_basebackup -R, a
// second postgres on another port) and pauses, lags and stops: only the
// reads that accept staleness see the replica's (paused, so stale) data;
// the writer reads its write, on another instance too; a replica behind
// by more than the bound is skipped and /readyz says so; a replica
// stopped under load costs no request.
func TestReadReplicas(t *testing.T) {
	primary := dbtest.StartPostgres(t)
	pdb, err := sql.Open("pgx", primary.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	ctx := context.Background()
	if _, err := pdb.ExecContext(ctx, "CREATE DATABASE replicas_sandbox"); err != nil {
		t.Fatal(err)
	}
	replica := primary.Replica(t)
	rdb, err := sql.Open("pgx", replica.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	rdb.SetMaxOpenConns(1)

	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.DB, c.SandboxDB = primary.DSN(), primary.DatabaseDSN("replicas_sandbox")
		c.ReadDB, c.SandboxReadDB = replica.DSN(), replica.DatabaseDSN("replicas_sandbox")
		c.ReadMaxLag, c.ReadCheck = 30*time.Second, 50*time.Millisecond
	}})
	primaryLSN := func() postgres.LSN {
		t.Helper()
		lsn, err := postgres.CurrentLSN(ctx, pdb)
		if err != nil {
			t.Fatal(err)
		}
		return lsn
	}

	createHub(t, srv, "RPL1", nil)
	at := primaryLSN()
	waitReplica(t, srv, "caught up", func(state string, lag float64, replayed postgres.LSN) bool {
		return state == "ok" && replayed >= at
	})
	if _, err := rdb.ExecContext(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	for {
		var state string
		if err := rdb.QueryRowContext(ctx, "SELECT pg_get_wal_replay_pause_state()").Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state == "paused" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The replica stays at one hub; the primary has two.
	w := createHub(t, srv, "RPL2", nil)
	mark := w.Header.Get(app.ReadAfterHeader)
	if lsn, err := postgres.ParseLSN(mark); err != nil || lsn < at {
		t.Fatalf("the write answered %s %q (%v), want a WAL position past %s", app.ReadAfterHeader, mark, err, at)
	}
	if r := srv.Do(t, http.MethodGet, srv.URL+"/v1/hubs", nil, nil); r.Header.Get(app.ReadAfterHeader) != "" {
		t.Errorf("a read answered %s %q", app.ReadAfterHeader, r.Header.Get(app.ReadAfterHeader))
	}
	replicaRead := http.Header{"Prefer": {"read=replica"}}
	primaryRead := http.Header{"Prefer": {"respond-async, read=primary"}}
	readAfter := http.Header{app.ReadAfterHeader: {mark}}

	t.Run("routing", func(t *testing.T) {
		for _, tc := range []struct {
			name, path string
			header     http.Header
			want       int
		}{
			{"an aggregate accepts staleness", "/v1/hubs/aggregate", nil, 1},
			{"an aggregate asked of the primary", "/v1/hubs/aggregate", primaryRead, 2},
			{"an aggregate export accepts staleness", "/v1/hubs/aggregate/export", nil, 1},
			{"an export accepts staleness", "/v1/hubs/export", nil, 1},
			{"a list answered as CSV is an export", "/v1/hubs?format=csv", nil, 1},
			{"an export asked of the primary", "/v1/hubs/export", primaryRead, 2},
			{"a list reads the primary", "/v1/hubs", nil, 2},
			{"a list that accepts staleness", "/v1/hubs", replicaRead, 1},
			{"a single hub reads the primary", "/v1/hubs?code=RPL2", nil, 1},
			{"the writer's aggregate reads its write", "/v1/hubs/aggregate", readAfter, 2},
			{"the writer's stale-accepting list reads its write", "/v1/hubs", http.Header{"Prefer": {"read=replica"}, app.ReadAfterHeader: {mark}}, 2},
		} {
			if got := hubCount(t, srv, tc.path, tc.header); got != tc.want {
				t.Errorf("%s: GET %s %v counts %d hubs, want %d", tc.name, tc.path, tc.header, got, tc.want)
			}
		}
		for _, tc := range []struct {
			name, query string
			header      http.Header
			want        int
		}{
			{"a GraphQL aggregate accepts staleness", "{ hubAggregate { count } }", nil, 1},
			{"a GraphQL aggregate asked of the primary", "{ hubAggregate { count } }", primaryRead, 2},
			{"a GraphQL list reads the primary", "{ hubs { totalCount } }", nil, 2},
			{"a GraphQL list that accepts staleness", "{ hubs { totalCount } }", replicaRead, 1},
			{"the writer's GraphQL aggregate reads its write", "{ hubAggregate { count } }", readAfter, 2},
		} {
			if got := gqlHubCount(t, srv, tc.query, tc.header); got != tc.want {
				t.Errorf("%s: %s %v counts %d hubs, want %d", tc.name, tc.query, tc.header, got, tc.want)
			}
		}
		if r := srv.Do(t, http.MethodGet, srv.URL+"/v1/hubs/aggregate", nil, http.Header{app.ReadAfterHeader: {"nonsense"}}); r.StatusCode != http.StatusBadRequest {
			t.Errorf("a malformed %s: %d %s, want 400", app.ReadAfterHeader, r.StatusCode, r.Body)
		}
		long := http.Header{"Prefer": {"read=replica, " + strings.Repeat("x", 250)}}
		for _, path := range []string{"/v1/hubs/aggregate", "/v1/hubs/export"} {
			if r := srv.Do(t, http.MethodGet, srv.URL+path, nil, long); r.StatusCode != http.StatusBadRequest || !strings.Contains(string(r.Body), `"invalid_count"`) {
				t.Errorf("GET %s with a Prefer over 256 bytes: %d %s, want 400 invalid_count", path, r.StatusCode, r.Body)
			}
		}
	})

	t.Run("keys are checked on the primary", func(t *testing.T) {
		// A key made while replay is paused is on the primary only; a
		// revoked one is still valid on the replica.
		secret, tok, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "after the pause", Environment: environment.Production, Scopes: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{"Prefer": {"read=replica"}, "Authorization": {"Bearer " + secret}}
		if got := hubCount(t, srv, "/v1/hubs/aggregate", h); got != 1 {
			t.Errorf("the new key's aggregate counts %d hubs, want the replica's 1", got)
		}
		if _, err := srv.App.Auth.Store.RevokeToken(ctx, &auth.Principal{Role: "owner"}, string(tok.ID)); err != nil {
			t.Fatal(err)
		}
		if r := srv.Do(t, http.MethodGet, srv.URL+"/v1/hubs/aggregate", nil, h); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("a revoked key with Prefer: read=replica: %d %s, want 401", r.StatusCode, r.Body)
		}
	})

	t.Run("writes and mutations asking for the replica", func(t *testing.T) {
		// A mutation asking for the replica: its response's reads (the
		// hubs' count, read after the write) see the primary.
		q := `mutation { createHub(input: {code: "RPL3", name: "RPL3", country: "NL"}) { code } }`
		r := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": q}, replicaRead)
		if r.StatusCode != http.StatusOK || strings.Contains(string(r.Body), `"errors"`) {
			t.Fatalf("mutation: %d %s", r.StatusCode, r.Body)
		}
		if r.Header.Get(app.ReadAfterHeader) == "" {
			t.Errorf("the mutation answered no %s", app.ReadAfterHeader)
		}
		w := createHub(t, srv, "RPL4", replicaRead)
		if got := hubCount(t, srv, "/v1/hubs/aggregate", http.Header{app.ReadAfterHeader: {w.Header.Get(app.ReadAfterHeader)}}); got != 4 {
			t.Errorf("after two more writes the writer counts %d hubs, want 4", got)
		}
		if got := hubCount(t, srv, "/v1/hubs/aggregate", nil); got != 1 {
			t.Errorf("the paused replica counts %d hubs, want 1", got)
		}
	})

	t.Run("read-your-writes on another instance and in a browser", func(t *testing.T) {
		twin := srv.Twin(t)
		if got := hubCount(t, twin, "/v1/hubs/aggregate", nil); got != 1 {
			t.Errorf("the other instance's aggregate counts %d hubs, want the replica's 1", got)
		}
		if got := hubCount(t, twin, "/v1/hubs/aggregate", readAfter); got != 4 {
			t.Errorf("the other instance's aggregate with the writer's %s counts %d hubs, want the primary's 4", app.ReadAfterHeader, got)
		}
		// A browser: the write answers a cookie, which its next request
		// sends back without the app's help.
		session := srv.Session(t, srv.AdminEmail, srv.AdminPassword)
		w := createHub(t, srv, "RPL5", session)
		var cookie *http.Cookie
		for _, c := range w.Cookies() {
			if c.Name == "logistics_read_after" {
				cookie = c
			}
		}
		if cookie == nil || cookie.Value != w.Header.Get(app.ReadAfterHeader) || !cookie.HttpOnly || cookie.MaxAge <= 0 || cookie.MaxAge > 60 {
			t.Fatalf("the browser's write answered cookie %+v, header %q", cookie, w.Header.Get(app.ReadAfterHeader))
		}
		next := session.Clone()
		next.Set("Cookie", next.Get("Cookie")+"; "+cookie.Name+"="+cookie.Value)
		if got := hubCount(t, twin, "/v1/hubs/aggregate", next); got != 5 {
			t.Errorf("the browser's next aggregate counts %d hubs, want 5", got)
		}
		if got := hubCount(t, twin, "/v1/hubs/aggregate", session); got != 1 {
			t.Errorf("without the cookie the browser's aggregate counts %d hubs, want the replica's 1", got)
		}
	})

	t.Run("a replayed write answers its position", func(t *testing.T) {
		// The client lost the first answer and retries through another
		// instance: the replay carries a position past the write.
		twin := srv.Twin(t)
		key := http.Header{"Idempotency-Key": {"replica-replay"}}
		body := map[string]any{"sku": "RPL-P1", "part_name": "replayed"}
		first := srv.Do(t, http.MethodPost, srv.URL+"/v1/parts", body, key)
		again := twin.Do(t, http.MethodPost, twin.URL+"/v1/parts", body, key)
		if first.StatusCode != http.StatusCreated || again.StatusCode != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("POST twice: %d, then %d replayed %q: %s", first.StatusCode, again.StatusCode, again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		at, err := postgres.ParseLSN(again.Header.Get(app.ReadAfterHeader))
		if err != nil {
			t.Fatalf("the replay answered %s %q (%v)", app.ReadAfterHeader, again.Header.Get(app.ReadAfterHeader), err)
		}
		if wrote, _ := postgres.ParseLSN(first.Header.Get(app.ReadAfterHeader)); at < wrote {
			t.Errorf("the replay's position %s is before the write's %s", at, wrote)
		}
		want := hubCount(t, twin, "/v1/parts/aggregate", primaryRead)
		if got := hubCount(t, twin, "/v1/parts/aggregate", http.Header{app.ReadAfterHeader: {again.Header.Get(app.ReadAfterHeader)}}); got != want {
			t.Errorf("with the replay's position the aggregate counts %d parts, want the primary's %d", got, want)
		}
	})

	t.Run("lag beyond the bound falls back to the primary", func(t *testing.T) {
		strict := srv.Twin(t, func(c *app.Config) { c.ReadMaxLag = 500 * time.Millisecond })
		waitReplica(t, strict, "lagging", func(state string, lag float64, _ postgres.LSN) bool {
			return state == "lagging" && lag > 0.5
		})
		status, out := readReady(t, strict)
		if m := out.Replicas["production"]; status != http.StatusOK || !out.Ready || m.Serving || !strings.Contains(m.Error, "behind") {
			t.Errorf("/readyz of a lagging replica: %d %+v (want ready, the replica not serving, the reason)", status, out)
		}
		if got := hubCount(t, strict, "/v1/hubs/aggregate", nil); got != 5 {
			t.Errorf("with the replica lagging the aggregate counts %d hubs, want the primary's 5", got)
		}
		if got := gqlHubCount(t, strict, "{ hubAggregate { count } }", nil); got != 5 {
			t.Errorf("with the replica lagging the GraphQL aggregate counts %d hubs, want 5", got)
		}
		if got := hubCount(t, srv, "/v1/hubs/aggregate", nil); got != 1 {
			t.Errorf("the instance with a 30s bound counts %d hubs, want the replica's 1", got)
		}

		if _, err := rdb.ExecContext(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
			t.Fatal(err)
		}
		at := primaryLSN()
		waitReplica(t, strict, "back within its bound", func(state string, _ float64, replayed postgres.LSN) bool {
			return state == "ok" && replayed >= at
		})
		waitReplica(t, srv, "caught up", func(state string, _ float64, replayed postgres.LSN) bool {
			return state == "ok" && replayed >= at
		})
		if got := hubCount(t, srv, "/v1/hubs/aggregate", nil); got != 5 {
			t.Errorf("the caught-up replica counts %d hubs, want 5", got)
		}
	})

	t.Run("a replica stopped under load", func(t *testing.T) {
		rdb.Close()
		stop := make(chan struct{})
		var (
			mu     sync.Mutex
			failed []string
			served int
		)
		type req struct {
			method, path, body string
			header             http.Header
		}
		reqs := []req{
			{"GET", "/v1/hubs/aggregate", "", nil},
			{"GET", "/v1/hubs?limit=10", "", replicaRead},
			{"GET", "/v1/hubs/export", "", nil},
			{"POST", "/graphql", `{"query": "{ hubAggregate { count } hubs { totalCount } }"}`, replicaRead},
		}
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					q := reqs[(i+n)%len(reqs)]
					var body io.Reader
					if q.body != "" {
						body = strings.NewReader(q.body)
					}
					hr, _ := http.NewRequest(q.method, srv.URL+q.path, body)
					hr.Header.Set("Authorization", "Bearer "+srv.Keys[environment.Production])
					hr.Header.Set("Content-Type", "application/json")
					for k, v := range q.header {
						hr.Header[k] = v
					}
					resp, err := srv.Client.Do(hr)
					var b []byte
					if err == nil {
						b, err = io.ReadAll(resp.Body)
						resp.Body.Close()
					}
					mu.Lock()
					switch {
					case err != nil:
						failed = append(failed, fmt.Sprintf("%s %s: %v", q.method, q.path, err))
					case resp.StatusCode != http.StatusOK || strings.Contains(string(b), `"errors"`):
						failed = append(failed, fmt.Sprintf("%s %s: %d %s", q.method, q.path, resp.StatusCode, b))
					default:
						served++
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(300 * time.Millisecond)
		if err := replica.Stop(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(700 * time.Millisecond)
		close(stop)
		wg.Wait()
		t.Logf("%d requests answered while the replica stopped", served)
		if served < 20 {
			t.Errorf("only %d requests answered in a second", served)
		}
		if len(failed) > 0 {
			t.Errorf("%d of %d requests failed while the replica stopped, the first: %s", len(failed), len(failed)+served, failed[0])
		}
		waitReplica(t, srv, "unreachable", func(state string, _ float64, _ postgres.LSN) bool { return state == "unreachable" })
		if status, out := readReady(t, srv); status != http.StatusOK || !out.Ready {
			t.Errorf("/readyz with the replica stopped: %d %+v, want ready (the primary serves)", status, out)
		}
		if got := hubCount(t, srv, "/v1/hubs/aggregate", nil); got != 5 {
			t.Errorf("with the replica stopped the aggregate counts %d, want 5", got)
		}

		if err := replica.Start(); err != nil {
			t.Fatal(err)
		}
		waitReplica(t, srv, "back after a restart", func(state string, _ float64, _ postgres.LSN) bool { return state == "ok" })
	})
}

// TestReadReplicaNeedsPostgres: the read replica flags name PostgreSQL
// replicas; with a SQLite database they stop the start with a clear error.
func TestReadReplicaNeedsPostgres(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*app.Config)
		want string
	}{
		{"read-db over SQLite", func(c *app.Config) { c.DB, c.ReadDB = "/tmp/p.db", "postgres://127.0.0.1/r" }, "read-db: read replicas are PostgreSQL's; --db is a SQLite database"},
		{"sandbox-read-db over SQLite", func(c *app.Config) { c.SandboxDB, c.SandboxReadDB = "/tmp/s.db", "postgres://127.0.0.1/r" }, "sandbox-read-db: read replicas are PostgreSQL's; --sandbox-db is a SQLite database"},
		{"a SQLite replica", func(c *app.Config) { c.DB, c.ReadDB = "postgres://127.0.0.1/p", "/tmp/r.db" }, "read-db must be a postgres:// DSN"},
		{"the primary as its replica", func(c *app.Config) { c.DB, c.ReadDB = "postgres://127.0.0.1/p", "postgres://127.0.0.1/p" }, "names the primary itself"},
		{"no lag bound", func(c *app.Config) { c.ReadMaxLag = 0 }, "read-max-lag must be at least 100ms"},
	} {
		c := app.Defaults()
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
