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
	r.Observe("production", "GET", "rest", 200, 3*time.Millisecond)
	r.Observe("production", "GET", "rest", 200, 2*time.Second)
	r.Observe("sandbox", "POST", "graphql", 422, time.Millisecond)
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
		`logistics_http_request_duration_seconds_bucket{environment="production",interface="rest",method="GET",status="200",le="0.005"} 1`,
		`logistics_http_request_duration_seconds_bucket{environment="production",interface="rest",method="GET",status="200",le="+Inf"} 2`,
		`logistics_http_request_duration_seconds_sum{environment="production",interface="rest",method="GET",status="200"} 2.003`,
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
