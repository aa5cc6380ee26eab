package metrics

import (
	"math"
	"net/http/httptest"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestExposition(t *testing.T) {
	r := New()
	r.Observe("production", "GET", "rest", 200, 3*time.Millisecond)
	r.Observe("production", "GET", "rest", 200, 2*time.Second)
	r.Observe("sandbox", "POST", "graphql", 422, time.Millisecond)
	r.Gauge("logistics_db_open_connections", "Open connections.", []string{"environment"}, func() []Sample {
		return []Sample{{Labels: []string{"production"}, Value: 3}}
	})
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`logistics_http_requests_total{environment="production",method="GET",interface="rest",status="200"} 2`,
		`logistics_http_requests_total{environment="sandbox",method="POST",interface="graphql",status="422"} 1`,
		`logistics_http_request_duration_seconds_bucket{environment="production",method="GET",interface="rest",status="200",le="0.005"} 1`,
		`logistics_http_request_duration_seconds_bucket{environment="production",method="GET",interface="rest",status="200",le="+Inf"} 2`,
		`logistics_db_open_connections{environment="production"} 3`,
		"# TYPE logistics_http_request_duration_seconds histogram",
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, body)
		}
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
}

// TestSchedLatencies: the runtime's scheduling latencies are exposed as a
// histogram whose buckets are cumulative and end at the count, which grows
// as goroutines run.
func TestSchedLatencies(t *testing.T) {
	for range 100 {
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
	}
	var b strings.Builder
	writeSchedLatencies(&b)
	var last, inf, count uint64 = 0, 0, 0
	buckets := 0
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("line %q", line)
		}
		n, err := strconv.ParseUint(value, 10, 64)
		switch {
		case strings.HasPrefix(name, `go_sched_latencies_seconds_bucket{le="+Inf"}`):
			inf = n
		case strings.HasPrefix(name, "go_sched_latencies_seconds_bucket"):
			if err != nil || n < last {
				t.Fatalf("bucket %q after %d: not cumulative", line, last)
			}
			last = n
			buckets++
		case name == "go_sched_latencies_seconds_count":
			count = n
		}
	}
	if buckets != len(schedBuckets) || count == 0 || inf != count || last > count {
		t.Fatalf("%d buckets, last %d, +Inf %d, count %d; want %d cumulative buckets under a count above 0:\n%s", buckets, last, inf, count, len(schedBuckets), b.String())
	}
}

// TestSchedHistogram: each of the runtime's buckets is counted under the
// first of our bounds at or above its upper end (one ending past the last
// bound only under +Inf), and the sum adds each bucket's lower end times its
// count (a bucket from -Inf adds nothing).
func TestSchedHistogram(t *testing.T) {
	inf := math.Inf(1)
	h := &metrics.Float64Histogram{
		Buckets: []float64{math.Inf(-1), 0, 0.000008, 0.00001, 0.0002, 0.003, 0.2, 0.9, 2, inf},
		Counts:  []uint64{1, 5, 7, 0, 11, 13, 17, 19, 23},
	}
	var b strings.Builder
	writeSchedHistogram(&b, h)
	want := `# HELP go_sched_latencies_seconds Time goroutines waited, runnable, before they ran.
# TYPE go_sched_latencies_seconds histogram
go_sched_latencies_seconds_bucket{le="1e-05"} 13
go_sched_latencies_seconds_bucket{le="0.0001"} 13
go_sched_latencies_seconds_bucket{le="0.001"} 13
go_sched_latencies_seconds_bucket{le="0.005"} 24
go_sched_latencies_seconds_bucket{le="0.01"} 24
go_sched_latencies_seconds_bucket{le="0.025"} 24
go_sched_latencies_seconds_bucket{le="0.05"} 24
go_sched_latencies_seconds_bucket{le="0.1"} 24
go_sched_latencies_seconds_bucket{le="0.25"} 37
go_sched_latencies_seconds_bucket{le="1"} 54
go_sched_latencies_seconds_bucket{le="+Inf"} 96
go_sched_latencies_seconds_sum ` + fmtFloat(5*0+7*0.000008+11*0.0002+13*0.003+17*0.2+19*0.9+23*2) + `
go_sched_latencies_seconds_count 96
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
