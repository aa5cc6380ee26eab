package metrics

import (
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T, r *Registry) (body, contentType string) {
	t.Helper()
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String(), rec.Header().Get("Content-Type")
}

func TestExposition(t *testing.T) {
	r := New()
	prod, sbx := r.Routes("production", ""), r.Routes("sandbox", "/sandbox")
	hub := prod.Pattern("GET /v1/hubs/{id}")
	r.Observe(hub, "GET", 200, OpNone, 3*time.Millisecond)
	r.Observe(hub, "GET", 200, OpNone, 2*time.Second)
	r.Observe(sbx.Pattern("/sandbox/graphql"), "POST", 422, OpMutation, time.Millisecond)
	r.Observe(prod.Pattern("/"), "BREW", 404, OpQuery, time.Millisecond) // not GraphQL: no operation
	done := r.InFlight()
	r.Gauge("logistics_db_open_connections", "Open connections.", []string{"environment"}, func() []Sample {
		return []Sample{{Labels: []string{"production"}, Value: 3}}
	})
	r.Counter("logistics_things_total", "Things.", nil, func() []Sample { return []Sample{{Value: 7}} })
	body, ct := scrape(t, r)
	done()
	for _, want := range []string{
		`logistics_http_requests_total{environment="production",interface="rest",method="GET",status="200"} 2`,
		`logistics_http_requests_total{environment="sandbox",interface="graphql",method="POST",status="422"} 1`,
		`logistics_http_requests_total{environment="production",interface="other",method="_OTHER",status="404"} 1`,
		`logistics_http_request_duration_seconds_bucket{environment="production",interface="rest",method="GET",operation="",route="/v1/hubs/{id}",status_class="2xx",le="0.005"} 1`,
		`logistics_http_request_duration_seconds_bucket{environment="production",interface="rest",method="GET",operation="",route="/v1/hubs/{id}",status_class="2xx",le="+Inf"} 2`,
		`logistics_http_request_duration_seconds_sum{environment="production",interface="rest",method="GET",operation="",route="/v1/hubs/{id}",status_class="2xx"} 2.003`,
		`logistics_http_request_duration_seconds_count{environment="sandbox",interface="graphql",method="POST",operation="mutation",route="/graphql",status_class="4xx"} 1`,
		`logistics_http_request_duration_seconds_count{environment="production",interface="other",method="_OTHER",operation="",route="/",status_class="4xx"} 1`,
		`logistics_http_requests_in_flight 1`,
		`logistics_db_open_connections{environment="production"} 3`,
		"# TYPE logistics_db_open_connections gauge",
		"# TYPE logistics_things_total counter\nlogistics_things_total 7",
		"# TYPE logistics_http_request_duration_seconds histogram",
		"\ngo_goroutines ",
		"\ngo_memstats_heap_alloc_bytes ",
		"\ngo_memstats_sys_bytes ",
		"\nprocess_resident_memory_bytes ",
		"\nprocess_cpu_seconds_total ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, body)
		}
	}
	if !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	if body, _ = scrape(t, r); !strings.Contains(body, "\nlogistics_http_requests_in_flight 0\n") {
		t.Errorf("the request done, still in flight:\n%s", body)
	}
}

// TestRoutePaths: a pattern's route is its path without the method and
// the environment's base path, and the route's interface follows from it;
// one route is one object whichever way it is asked for.
func TestRoutePaths(t *testing.T) {
	rs := New().Routes("sandbox", "/sandbox/")
	for pattern, want := range map[string][2]string{
		"GET /sandbox/v1/hubs/{id}":   {"/v1/hubs/{id}", REST},
		"/sandbox/v1/":                {"/v1/", REST},
		"/sandbox/graphql":            {"/graphql", GraphQL},
		"GET /sandbox/console/login":  {"/console/login", Console},
		"/sandbox/playground/":        {"/playground/", Playground},
		"GET /sandbox/{$}":            {"/{$}", Other},
		"/":                           {"/", Other},
		"":                            {"", Other},
		"POST example.com/sandbox/v1": {"/v1", REST},
	} {
		rt := rs.Pattern(pattern)
		if rt.Path() != want[0] || rt.Interface() != want[1] || rt.Environment() != "sandbox" {
			t.Errorf("Pattern(%q) = %q %q %q, want %q %q sandbox", pattern, rt.Path(), rt.Interface(), rt.Environment(), want[0], want[1])
		}
		if rs.Route(rt.Path()) != rt {
			t.Errorf("Route(%q) is not Pattern(%q)'s route", rt.Path(), pattern)
		}
	}
}

// TestObserveAllocates: recording a request of a route seen before
// allocates nothing, for any method, status and operation.
func TestObserveAllocates(t *testing.T) {
	r := New()
	rs := r.Routes("production", "")
	rest, gql := rs.Pattern("GET /v1/hubs/{id}"), rs.Pattern("/graphql")
	for _, c := range []struct {
		rt     *Route
		method string
		status int
		op     Operation
	}{
		{rest, "GET", 200, OpNone}, {rest, "HEAD", 304, OpNone}, {rest, "PATCH", 409, OpNone},
		{gql, "POST", 200, OpQuery}, {gql, "POST", 200, OpMutation}, {gql, "GET", 101, OpWebSocket}, {gql, "BREW", 500, OpNone},
	} {
		r.Observe(c.rt, c.method, c.status, c.op, time.Millisecond) // first: resolves the series
		if n := testing.AllocsPerRun(100, func() { r.Observe(c.rt, c.method, c.status, c.op, time.Millisecond) }); n != 0 {
			t.Errorf("%s %s %d %v: %v allocations per request, want 0", c.rt.Path(), c.method, c.status, c.op, n)
		}
	}
}

// TestStatementKinds: statements are classified by their first keyword.
func TestStatementKinds(t *testing.T) {
	for q, want := range map[string]string{
		`SELECT 1`: "select", "  \n\tselect x": "select", `(SELECT 1) UNION (SELECT 2)`: "select",
		`INSERT INTO "hubs"`: "insert", `update hubs`: "update", `DELETE FROM x`: "delete",
		`WITH c AS (UPDATE x) SELECT 1`: "other", `PRAGMA foo`: "other", ``: "other", `SELEC`: "other",
	} {
		if got := kinds[kindOf(q)]; got != want {
			t.Errorf("kindOf(%q) = %s, want %s", q, got, want)
		}
	}
}

// TestSampleLabelsMismatch: a read function that returns the wrong number
// of label values costs its own family, not the whole scrape.
func TestSampleLabelsMismatch(t *testing.T) {
	r := New()
	r.Gauge("logistics_bad", "Bad.", []string{"environment"}, func() []Sample { return []Sample{{Value: 1}} })
	body, _ := scrape(t, r)
	if strings.Contains(body, "\nlogistics_bad") || !strings.Contains(body, "logistics_http_requests_in_flight 0") {
		t.Errorf("want the bad family left out and the rest served:\n%s", body)
	}
}

// TestSchedLatencies: the runtime's scheduling latencies are exposed as a
// histogram whose buckets are cumulative and end at the count, which is
// above zero once goroutines have run.
func TestSchedLatencies(t *testing.T) {
	for range 100 {
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
	}
	body, _ := scrape(t, New())
	if !strings.Contains(body, "# TYPE go_sched_latencies_seconds histogram\n") {
		t.Fatalf("no go_sched_latencies_seconds histogram:\n%s", body)
	}
	bucket := regexp.MustCompile(`(?m)^go_sched_latencies_seconds_bucket\{le="([^"]+)"\} (\d+)$`)
	var last, inf uint64
	n := 0
	for _, m := range bucket.FindAllStringSubmatch(body, -1) {
		v, _ := strconv.ParseUint(m[2], 10, 64)
		if v < last {
			t.Fatalf("bucket le=%s = %d after %d: not cumulative", m[1], v, last)
		}
		last = v
		n++
		if m[1] == "+Inf" {
			inf = v
		}
	}
	cm := regexp.MustCompile(`(?m)^go_sched_latencies_seconds_count (\d+)$`).FindStringSubmatch(body)
	if n < 5 || cm == nil || cm[1] == "0" || strconv.FormatUint(inf, 10) != cm[1] {
		t.Fatalf("%d buckets, +Inf %d, count %v; want cumulative buckets ending at a count above 0:\n%s", n, inf, cm, body)
	}
}
