package app_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// scrapeMetrics reads srv's /metrics into a map from each sample's name and
// labels, exactly as exposed, to its value.
func scrapeMetrics(t *testing.T, srv *apptest.Server) map[string]float64 {
	t.Helper()
	r := srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, apptest.Anonymous())
	if r.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %s", r.StatusCode, r.Body)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(r.Body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("/metrics: %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// duration is the name and labels of a request-duration series' sample.
func duration(sample, env, iface, route, method, class, op string) string {
	return `logistics_http_request_duration_seconds_` + sample + `{environment="` + env + `",interface="` + iface +
		`",method="` + method + `",operation="` + op + `",route="` + route + `",status_class="` + class + `"}`
}

// TestMetricsAfterRequests: real requests of every interface, through a
// real server, show in /metrics under their route template, status class
// and GraphQL operation type; the pools, the statements they ran and the
// event log's lag are there with values that follow from them. It runs on
// SQLite and, with LOGISTICS_TEST_POSTGRES, on PostgreSQL.
func TestMetricsAfterRequests(t *testing.T) {
	srv := apptest.New(t)
	before := scrapeMetrics(t, srv)

	// A subscriber, so that the event log's reader runs.
	sub, err := srv.App.Streams.Subscribe(srv.Ctx(environment.Production), srv.Env(environment.Production), "metrics-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	id := srv.Create(t, environment.Production, "/v1/hubs", map[string]any{"code": "MT1", "name": "Metrics", "address": map[string]any{"country": "NL"}})
	for range 3 {
		if r := srv.Do(t, http.MethodGet, srv.URL+"/v1/hubs/"+id, nil, nil); r.StatusCode != http.StatusOK {
			t.Fatalf("GET hub: %d %s", r.StatusCode, r.Body)
		}
	}
	if r := srv.Do(t, http.MethodGet, srv.SandboxURL+"/v1/hubs/hub_nosuchhub", nil, nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("GET a missing sandbox hub: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.Do(t, http.MethodGet, srv.URL+"/v1/hubs", nil, apptest.Anonymous()); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET hubs without a key: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.Do(t, http.MethodGet, srv.URL+"/no/such/page/"+id, nil, nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("GET a missing page: %d", r.StatusCode)
	}
	srv.MustGraphQL(t, environment.Production, `{ hubs(first: 1) { totalCount } }`, nil, nil)
	srv.MustGraphQL(t, environment.Production, `mutation { createHub(input: {code: "MT2", name: "Metrics 2", country: "NL"}) { id } }`, nil, nil)
	if r := srv.GraphQL(t, environment.Production, `{ hubs { nosuchfield } }`, nil); len(r.Errors) == 0 {
		t.Fatalf("an invalid query answered without errors: %d", r.Status)
	}
	if r := srv.Do(t, http.MethodGet, srv.URL+"/playground", nil, apptest.Anonymous()); r.StatusCode != http.StatusOK {
		t.Fatalf("playground: %d", r.StatusCode)
	}
	sseSubscription(t, srv)

	// The reader hands the two hubs' events out at once: wait for it.
	var after map[string]float64
	const seq, pub, lag = `logistics_event_log_sequence{environment="production"}`, `logistics_event_log_published_sequence{environment="production"}`, `logistics_event_log_lag_seconds{environment="production"}`
	for deadline := time.Now().Add(10 * time.Second); ; {
		after = scrapeMetrics(t, srv)
		if after[pub] >= after[seq] || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if after[seq] < before[seq]+2 {
		t.Errorf("%s = %v, was %v: want 2 events more", seq, after[seq], before[seq])
	}
	if v, ok := after[pub]; !ok || v != after[seq] {
		t.Errorf("%s = %v (present: %v), want the last sequence %v", pub, v, ok, after[seq])
	}
	if v, ok := after[lag]; !ok || v != 0 {
		t.Errorf("%s = %v (present: %v), want 0 once the reader caught up", lag, v, ok)
	}
	if _, ok := before[pub]; ok {
		t.Errorf("%s present before any subscriber", pub)
	}

	// Requests: each under its route template, never the raw path.
	for _, c := range []struct {
		series string
		n      float64
	}{
		{duration("count", "production", "rest", "/v1/hubs", "POST", "2xx", ""), 1},
		{duration("count", "production", "rest", "/v1/hubs/{id}", "GET", "2xx", ""), 3},
		{duration("count", "sandbox", "rest", "/v1/hubs/{id}", "GET", "4xx", ""), 1},
		{duration("count", "production", "rest", "/v1/", "GET", "4xx", ""), 1}, // refused before routing
		{duration("count", "production", "other", "/", "GET", "4xx", ""), 1},
		{duration("count", "production", "graphql", "/graphql", "POST", "2xx", "query"), 1},
		{duration("count", "production", "graphql", "/graphql", "POST", "2xx", "mutation"), 1},
		{duration("count", "production", "playground", "/playground", "GET", "2xx", ""), 1},
		{duration("count", "production", "graphql", "/graphql", "POST", "2xx", "subscription"), 1},
		{`logistics_http_requests_total{environment="production",interface="rest",method="GET",status="200"}`, 3},
		{`logistics_http_requests_total{environment="production",interface="graphql",method="POST",status="200"}`, 3}, // the SSE subscription too
	} {
		if d := after[c.series] - before[c.series]; d != c.n {
			t.Errorf("%s rose by %v, want %v", c.series, d, c.n)
		}
	}
	if s := duration("sum", "production", "rest", "/v1/hubs/{id}", "GET", "2xx", ""); after[s] <= 0 || after[s] > 30 {
		t.Errorf("%s = %v, want the three requests' time", s, after[s])
	}
	invalid := 0.0
	for k, v := range after {
		if strings.Contains(k, "_count{") && strings.Contains(k, `route="/graphql"`) && strings.Contains(k, `operation=""`) {
			invalid += v - before[k]
		}
		if strings.Contains(k, id) || strings.Contains(k, "/no/such") {
			t.Errorf("a raw path became a label: %s", k)
		}
	}
	if invalid != 1 {
		t.Errorf("GraphQL requests without an operation type rose by %v, want 1 (the invalid query)", invalid)
	}

	// The pools of both environments, from database/sql's statistics.
	for _, env := range []string{"production", "sandbox"} {
		labels := `{db_name="` + env + `",environment="` + env + `"}`
		if v, ok := after["go_sql_open_connections"+labels]; !ok || v < 1 {
			t.Errorf("go_sql_open_connections%s = %v (present: %v), want at least 1", labels, v, ok)
		}
		if v := after["go_sql_max_open_connections"+labels]; v != 8 && v != 20 {
			t.Errorf("go_sql_max_open_connections%s = %v, want the pool's bound", labels, v)
		}
		for _, name := range []string{"go_sql_in_use_connections", "go_sql_idle_connections", "go_sql_wait_count_total", "go_sql_wait_duration_seconds_total"} {
			if _, ok := after[name+labels]; !ok {
				t.Errorf("%s%s missing", name, labels)
			}
		}
	}

	// The statements the requests ran.
	for kind, atLeast := range map[string]float64{"select": 3, "insert": 2, "commit": 2} {
		s := `logistics_db_statement_duration_seconds_count{environment="production",kind="` + kind + `"}`
		if d := after[s] - before[s]; d < atLeast {
			t.Errorf("%s rose by %v, want at least %v", s, d, atLeast)
		}
	}
	if s := `logistics_db_statement_duration_seconds_sum{environment="production",kind="select"}`; after[s] <= before[s] {
		t.Errorf("%s = %v, was %v: want it to grow", s, after[s], before[s])
	}
	if s := `logistics_db_statement_duration_seconds_count{environment="sandbox",kind="update"}`; after[s] != before[s] {
		t.Errorf("%s rose by %v: the sandbox was only read", s, after[s]-before[s])
	}

	// The webhook queue (no endpoint: empty), in one statement per database.
	for _, s := range []string{`logistics_webhook_queue_depth{environment="production"}`, `logistics_webhook_oldest_pending_age_seconds{environment="sandbox"}`} {
		if v, ok := after[s]; !ok || v != 0 {
			t.Errorf("%s = %v (present: %v), want 0", s, v, ok)
		}
	}
}

// sseSubscription opens a GraphQL subscription over Server-Sent Events,
// reads its first bytes and hangs up, then waits for the server to see the
// request end (the in-flight gauge back at its value before).
func sseSubscription(t *testing.T, srv *apptest.Server) {
	t.Helper()
	const inFlight = "logistics_http_requests_in_flight"
	idle := scrapeMetrics(t, srv)[inFlight]
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/graphql", strings.NewReader(`{"query":"subscription { events { sequence } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+srv.Keys[environment.Production])
	resp, err := srv.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("SSE subscription: %d", resp.StatusCode)
	}
	_, _ = resp.Body.Read(make([]byte, 64))
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); scrapeMetrics(t, srv)[inFlight] > idle; {
		if time.Now().After(deadline) {
			t.Fatal("the SSE subscription's request did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEventLogLagGrows: while the reader cannot hand out what committed
// (its subscriber's hub stopped reading), the lag grows from the moment the
// event was known; with no subscriber the published sequence is absent and
// the lag 0.
func TestEventLogLagGrows(t *testing.T) {
	srv := apptest.New(t)
	env := srv.Env(environment.Production)
	const lag = `logistics_event_log_lag_seconds{environment="production"}`
	srv.Create(t, environment.Production, "/v1/hubs", map[string]any{"code": "LG1", "name": "Lag", "address": map[string]any{"country": "NL"}})
	if v := scrapeMetrics(t, srv)[lag]; v != 0 {
		t.Fatalf("%s = %v with no subscriber, want 0", lag, v)
	}
	// A reader that has handed out less than what is known committed.
	last, _, _ := env.Events.Lag(time.Now())
	env.Events.Published(last - 1)
	env.Events.Wake(last + 1)
	time.Sleep(50 * time.Millisecond)
	if v := scrapeMetrics(t, srv)[lag]; v < 0.05 || v > 10 {
		t.Errorf("%s = %v behind by an event for 50 ms, want about 0.05", lag, v)
	}
	env.Events.Published(last + 1)
	if v := scrapeMetrics(t, srv)[lag]; v != 0 {
		t.Errorf("%s = %v once caught up, want 0", lag, v)
	}
	env.Events.Published(-1)
}
