package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/dbtest"
	"logistics/internal/environment"
)

// TestDatabaseDownPostgres: while the production database's PostgreSQL is
// stopped (immediately: its connections drop mid-pool), REST and GraphQL,
// reads and writes, through a cached key and through one that must be read,
// answer 503 database_unavailable with Retry-After, never 500; /readyz says
// so; once the cluster is back, the same requests succeed.
func TestDatabaseDownPostgres(t *testing.T) {
	pg := dbtest.StartPostgres(t, "fsync=off")
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.DB = pg.DSN()
		c.AuthCacheTTL = time.Hour // the key is read once: requests reach the handlers
	}})
	checkUp(t, s, "before")
	if err := pg.Stop(); err != nil {
		t.Fatalf("pg_ctl stop: %v", err)
	}
	checkDown(t, s)
	if err := pg.Start(); err != nil {
		t.Fatalf("pg_ctl start: %v", err)
	}
	waitUp(t, s)
	checkUp(t, s, "after")
}

// TestDatabaseDownSQLite: the production database's SQLite file goes
// away (its directory is moved while the pool holds no connection, as a
// volume unmounted under the service would leave it): the same answers as
// PostgreSQL's, and the same recovery once the file is back.
func TestDatabaseDownSQLite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "production")
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.DB = filepath.Join(dir, "production.db")
		c.AuthCacheTTL = time.Hour
	}})
	checkUp(t, s, "before")
	db := s.Env(environment.Production).DB.SQL
	db.SetMaxIdleConns(0) // closes the idle connections, and every one given back
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	checkDown(t, s)
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(8)
	waitUp(t, s)
	checkUp(t, s, "after")
}

const dbDownQuery = `{ hubs(first: 1) { totalCount } }`

func dbDownHub(n string) map[string]any {
	return map[string]any{"code": "DD" + n, "name": "Down " + n, "address": map[string]any{"country": "NL"}}
}

func checkUp(t *testing.T, s *apptest.Server, when string) {
	t.Helper()
	if r := s.Do(t, "POST", s.URL+"/v1/hubs", dbDownHub(strings.ToUpper(when[:1])), nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("%s: POST /v1/hubs: %d %s", when, r.StatusCode, r.Body)
	}
	if r := s.Do(t, "GET", s.URL+"/v1/hubs", nil, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("%s: GET /v1/hubs: %d %s", when, r.StatusCode, r.Body)
	}
	s.MustGraphQL(t, environment.Production, dbDownQuery, nil, nil)
	s.MustGraphQL(t, environment.Production, `mutation { createHub(input: {code: "GQ`+strings.ToUpper(when[:1])+`", name: "x", country: "NL"}) { id } }`, nil, nil)
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/hubs", nil, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("%s: sandbox GET /v1/hubs: %d %s", when, r.StatusCode, r.Body)
	}
	if r := s.Do(t, "GET", s.URL+"/readyz", nil, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("%s: /readyz: %d %s", when, r.StatusCode, r.Body)
	}
}

// waitUp waits until the production database answers again.
func waitUp(t *testing.T, s *apptest.Server) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := s.Do(t, "GET", s.URL+"/v1/hubs", nil, nil)
		if r.StatusCode == http.StatusOK {
			return
		}
		if r.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the database came back: GET /v1/hubs: %d %s", r.StatusCode, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func checkDown(t *testing.T, s *apptest.Server) {
	t.Helper()
	unknownKey := http.Header{"Authorization": {"Bearer " + environment.Production.KeyPrefix() + "unknownunknownunknownunknown"}}
	type req struct {
		name         string
		method, path string
		body         any
		header       http.Header
	}
	// Three times over: the first requests meet the pool's dead connections,
	// the later ones new connections that cannot be made.
	for round := range 3 {
		for _, q := range []req{
			{"list", "GET", "/v1/hubs", nil, nil},
			{"create", "POST", "/v1/hubs", dbDownHub("X" + strconv.Itoa(round)), nil},
			{"key to read", "GET", "/v1/hubs", nil, unknownKey},
			{"idempotent create", "POST", "/v1/hubs", dbDownHub("I" + strconv.Itoa(round)), http.Header{"Idempotency-Key": {"dbdown-" + strconv.Itoa(round)}}},
			{"transition", "POST", "/v1/orders/ord_01M8SN61GEX1W5Z92B9ZMEBHR9/transitions", map[string]any{"transition": "submit"}, nil},
		} {
			r := s.Do(t, q.method, s.URL+q.path, q.body, q.header)
			if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" ||
				!strings.Contains(string(r.Body), `"code":"database_unavailable"`) {
				t.Errorf("round %d, REST %s: %d Retry-After=%q %s", round, q.name, r.StatusCode, r.Header.Get("Retry-After"), r.Body)
			}
		}
		for _, q := range []struct {
			name, query string
			header      http.Header
		}{
			{"query", dbDownQuery, nil},
			{"mutation", `mutation { createHub(input: {code: "GQX` + strconv.Itoa(round) + `", name: "x", country: "NL"}) { id } }`, nil},
			{"key to read", dbDownQuery, unknownKey},
		} {
			for _, accept := range []string{"application/graphql-response+json", "application/json"} {
				h := http.Header{"Accept": {accept}}
				for k, v := range q.header {
					h[k] = v
				}
				r := s.Do(t, "POST", s.URL+"/graphql", map[string]any{"query": q.query}, h)
				var out apptest.GQLResponse
				r.JSON(t, &out)
				ok := r.StatusCode == http.StatusServiceUnavailable && r.Header.Get("Retry-After") != "" && len(out.Errors) > 0
				for _, e := range out.Errors {
					ok = ok && e.Extensions["reason"] == "database_unavailable"
				}
				if !ok {
					t.Errorf("round %d, GraphQL %s (%s): %d Retry-After=%q %s", round, q.name, accept, r.StatusCode, r.Header.Get("Retry-After"), r.Body)
				}
			}
		}
	}
	if r := s.Do(t, "GET", s.URL+"/readyz", nil, nil); r.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz while the database is down: %d %s", r.StatusCode, r.Body)
	}
	// The sandbox has its own database, which still answers (its key
	// was read before, checkUp).
	if r := s.Do(t, "GET", s.SandboxURL+"/v1/hubs", nil, nil); r.StatusCode != http.StatusOK {
		t.Errorf("sandbox while production's database is down: %d %s", r.StatusCode, r.Body)
	}
}
