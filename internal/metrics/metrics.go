// Package metrics counts requests and exposes them, with database-pool and
// runtime figures, in the Prometheus text format at /metrics.
package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// buckets are the upper bounds (seconds) of the request-duration histogram.
var buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// schedBuckets are the upper bounds (seconds) of the scheduling-latency
// histogram: time goroutines spent runnable before they ran.
var schedBuckets = []float64{0.00001, 0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}

type key struct {
	env, method, class string // class: "graphql", "rest", "other"
	status             int
}

type series struct {
	count  atomic.Int64
	sumNs  atomic.Int64
	bucket []atomic.Int64
}

// Registry holds the request metrics and the gauges read at scrape time.
type Registry struct {
	mu       sync.RWMutex
	requests map[key]*series
	inFlight atomic.Int64
	gauges   []func(w io.Writer)
}

// New returns an empty registry.
func New() *Registry { return &Registry{requests: map[key]*series{}} }

// Observe records one finished request.
func (r *Registry) Observe(env, method, class string, status int, d time.Duration) {
	k := key{env, method, class, status}
	r.mu.RLock()
	s := r.requests[k]
	r.mu.RUnlock()
	if s == nil {
		r.mu.Lock()
		if s = r.requests[k]; s == nil {
			s = &series{bucket: make([]atomic.Int64, len(buckets))}
			r.requests[k] = s
		}
		r.mu.Unlock()
	}
	s.count.Add(1)
	s.sumNs.Add(int64(d))
	secs := d.Seconds()
	for i, b := range buckets {
		if secs <= b {
			s.bucket[i].Add(1)
		}
	}
}

// InFlight tracks a request in progress; call the returned func when done.
func (r *Registry) InFlight() func() {
	r.inFlight.Add(1)
	return func() { r.inFlight.Add(-1) }
}

// Gauge adds a metric family written at scrape time.
func (r *Registry) Gauge(name, help string, labels []string, read func() []Sample) {
	r.register("gauge", name, help, labels, read)
}

// Counter registers a cumulative value read at scrape time, like Gauge.
func (r *Registry) Counter(name, help string, labels []string, read func() []Sample) {
	r.register("counter", name, help, labels, read)
}

func (r *Registry) register(kind, name, help string, labels []string, read func() []Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gauges = append(r.gauges, func(w io.Writer) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
		for _, s := range read() {
			fmt.Fprintf(w, "%s%s %s\n", name, labelSet(labels, s.Labels), fmtFloat(s.Value))
		}
	})
}

// Sample is one value of a gauge or counter with its label values.
type Sample struct {
	Labels []string
	Value  float64
}

// Handler serves the metrics in the Prometheus text format 0.0.4.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		r.write(w)
	})
}

func (r *Registry) write(w io.Writer) {
	r.mu.RLock()
	keys := make([]key, 0, len(r.requests))
	for k := range r.requests {
		keys = append(keys, k)
	}
	gauges := append([]func(io.Writer){}, r.gauges...)
	r.mu.RUnlock()
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	names := []string{"environment", "method", "interface", "status"}
	fmt.Fprint(w, "# HELP logistics_http_requests_total Requests served.\n# TYPE logistics_http_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(w, "logistics_http_requests_total%s %d\n", labelSet(names, k.values()), r.get(k).count.Load())
	}
	fmt.Fprint(w, "# HELP logistics_http_request_duration_seconds Request durations.\n# TYPE logistics_http_request_duration_seconds histogram\n")
	for _, k := range keys {
		s := r.get(k)
		for i, b := range buckets {
			fmt.Fprintf(w, "logistics_http_request_duration_seconds_bucket%s %d\n", labelSet(append(names, "le"), append(k.values(), fmtFloat(b))), s.bucket[i].Load())
		}
		fmt.Fprintf(w, "logistics_http_request_duration_seconds_bucket%s %d\n", labelSet(append(names, "le"), append(k.values(), "+Inf")), s.count.Load())
		fmt.Fprintf(w, "logistics_http_request_duration_seconds_sum%s %s\n", labelSet(names, k.values()), fmtFloat(time.Duration(s.sumNs.Load()).Seconds()))
		fmt.Fprintf(w, "logistics_http_request_duration_seconds_count%s %d\n", labelSet(names, k.values()), s.count.Load())
	}
	fmt.Fprintf(w, "# HELP logistics_http_requests_in_flight Requests being served.\n# TYPE logistics_http_requests_in_flight gauge\nlogistics_http_requests_in_flight %d\n", r.inFlight.Load())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "# HELP go_goroutines Goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	fmt.Fprintf(w, "# HELP go_memstats_heap_alloc_bytes Heap bytes in use.\n# TYPE go_memstats_heap_alloc_bytes gauge\ngo_memstats_heap_alloc_bytes %d\n", ms.HeapAlloc)
	fmt.Fprintf(w, "# HELP go_memstats_sys_bytes Bytes obtained from the OS.\n# TYPE go_memstats_sys_bytes gauge\ngo_memstats_sys_bytes %d\n", ms.Sys)
	writeSchedLatencies(w)
	for _, g := range gauges {
		g(w)
	}
}

func (r *Registry) get(k key) *series {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.requests[k]
}

func (k key) values() []string { return []string{k.env, k.method, k.class, strconv.Itoa(k.status)} }

func labelSet(names, values []string) string {
	if len(names) == 0 {
		return ""
	}
	b := []byte{'{'}
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
		b = append(b, '=')
		b = strconv.AppendQuote(b, values[i])
	}
	return string(append(b, '}'))
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// writeSchedLatencies writes the Go runtime's scheduling latencies (how
// long goroutines waited, runnable, for a P: /sched/latencies:seconds) as a
// histogram over schedBuckets. Requests starved in the scheduler's global
// queue show in the buckets over 100 ms (internal/schedturns); the turns' own short-lived goroutines fill the
// 5–25 ms ones under load, which is no sign of trouble. The runtime's own
// buckets are finer; each is counted under the first bound at or above its
// upper end, and the sum from each bucket's lower end (an estimate from
// below: the runtime keeps no sum).
func writeSchedLatencies(w io.Writer) {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return
	}
	writeSchedHistogram(w, s[0].Value.Float64Histogram())
}

// writeSchedHistogram writes h, a histogram of the runtime's shape (Buckets
// holds len(Counts)+1 bounds, the first may be -Inf and the last +Inf), as
// go_sched_latencies_seconds over schedBuckets.
func writeSchedHistogram(w io.Writer, h *metrics.Float64Histogram) {
	cumulative := make([]uint64, len(schedBuckets))
	var count uint64
	var sum float64
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		count += n
		if lo := h.Buckets[i]; !math.IsInf(lo, 0) {
			sum += lo * float64(n)
		}
		hi := h.Buckets[i+1]
		for j, b := range schedBuckets {
			if hi <= b {
				cumulative[j] += n
			}
		}
	}
	fmt.Fprint(w, "# HELP go_sched_latencies_seconds Time goroutines waited, runnable, before they ran.\n# TYPE go_sched_latencies_seconds histogram\n")
	for j, b := range schedBuckets {
		fmt.Fprintf(w, "go_sched_latencies_seconds_bucket{le=%q} %d\n", fmtFloat(b), cumulative[j])
	}
	fmt.Fprintf(w, "go_sched_latencies_seconds_bucket{le=\"+Inf\"} %d\ngo_sched_latencies_seconds_sum %s\ngo_sched_latencies_seconds_count %d\n", count, fmtFloat(sum), count)
}
