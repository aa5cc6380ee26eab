// Package metrics counts requests and exposes them, with database-pool,
// process and Go runtime figures, in the Prometheus exposition formats at
// /metrics, through prometheus/client_golang.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// buckets are the upper bounds (seconds) of the request-duration histogram.
var buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type key struct {
	env, method, class string // class: "graphql", "rest", "other"
	status             int
}

// series is one request label set's child of the counter, looked up once:
// the request path then costs a map read and an atomic add, with no label
// hashing and no allocation.
type series struct {
	count prometheus.Counter
}

// Registry holds the request metrics and the figures read at scrape time.
// It owns its prometheus.Registry (not the global default), so two apps in
// one process (tests) keep their counts apart.
type Registry struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	inFlight  prometheus.Gauge
	// statements: SQL statement durations by environment and kind.
	statements *prometheus.HistogramVec

	mu     sync.RWMutex
	series map[key]series
	routes map[string]*Routes // by environment
}

// New returns a registry with the request metrics at zero and the Go
// runtime (scheduling latencies included) and process collectors.
func New() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "logistics_http_requests_total", Help: "Requests served, by status code.",
		}, []string{"environment", "method", "interface", "status"}),
		// By route (the pattern that served it, never the raw path) and
		// status class rather than code: routes × codes would multiply the
		// series past what a scrape should carry.
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "logistics_http_request_duration_seconds", Help: "Request durations by route, status class and GraphQL operation type.", Buckets: buckets,
		}, []string{"environment", "interface", "route", "method", "status_class", "operation"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "logistics_http_requests_in_flight", Help: "Requests being served.",
		}),
		statements: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "logistics_db_statement_duration_seconds", Help: "SQL statement durations through ent's driver, by kind (select, insert, update, delete, commit, other); a query until its rows are closed.",
			Buckets: statementBuckets,
		}, []string{"environment", "kind"}),
		series: map[key]series{},
		routes: map[string]*Routes{},
	}
	r.reg.MustRegister(r.requests, r.durations, r.inFlight, r.statements,
		// The scheduler's series include go_sched_latencies_seconds: how
		// long goroutines waited, runnable, for a P. Requests starved in
		// the scheduler's global queue show in its buckets over 100 ms.
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Observe records one finished request of route rt: its count by status
// code, and its duration by route and status class.
func (r *Registry) Observe(rt *Route, method string, status int, op Operation, d time.Duration) {
	method = Method(method)
	k := key{rt.env, method, rt.iface, status}
	r.mu.RLock()
	s, ok := r.series[k]
	r.mu.RUnlock()
	if !ok {
		s = r.newSeries(k)
	}
	s.count.Inc()
	rt.Observe(method, status, op, d)
}

func (r *Registry) newSeries(k key) series {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.series[k]; ok {
		return s
	}
	lv := []string{k.env, k.method, k.class, strconv.Itoa(k.status)}
	s := series{count: r.requests.WithLabelValues(lv...)}
	r.series[k] = s
	return s
}

// InFlight tracks a request in progress; call the returned func when done.
func (r *Registry) InFlight() func() {
	r.inFlight.Inc()
	return func() { r.inFlight.Dec() }
}

// Gauge adds a metric family whose values read is asked for at scrape time.
func (r *Registry) Gauge(name, help string, labels []string, read func() []Sample) {
	r.reg.MustRegister(&readCollector{prometheus.NewDesc(name, help, labels, nil), prometheus.GaugeValue, read})
}

// Counter registers a cumulative value read at scrape time, like Gauge.
func (r *Registry) Counter(name, help string, labels []string, read func() []Sample) {
	r.reg.MustRegister(&readCollector{prometheus.NewDesc(name, help, labels, nil), prometheus.CounterValue, read})
}

// Histogram registers a histogram vector the caller observes into.
func (r *Registry) Histogram(opts prometheus.HistogramOpts, labels []string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(opts, labels)
	r.reg.MustRegister(h)
	return h
}

// Sample is one value of a gauge or counter with its label values.
type Sample struct {
	Labels []string
	Value  float64
}

// readCollector turns a read function into a metric family.
type readCollector struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	read func() []Sample
}

func (c *readCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *readCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.read() {
		m, err := prometheus.NewConstMetric(c.desc, c.kind, s.Value, s.Labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(c.desc, err)
		}
		ch <- m
	}
}

// Handler serves the metrics; the text format 0.0.4 unless the scraper
// asks for another one client_golang speaks. A family that fails is left
// out and the rest served.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
