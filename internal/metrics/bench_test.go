package metrics

import (
	"testing"
	"time"
)

// BenchmarkRecord is what every request pays for the metrics: the in-flight
// gauge up and down, its count, and one observation of its route's
// duration (existing series).
func BenchmarkRecord(b *testing.B) {
	r := New()
	rt := r.Routes("production", "").Pattern("GET /v1/hubs/{id}")
	b.ReportAllocs()
	for b.Loop() {
		done := r.InFlight()
		r.Observe(rt, "GET", 200, OpNone, 3*time.Millisecond)
		done()
	}
}

// BenchmarkRecordParallel is BenchmarkRecord from every P at once, on the
// same series (the contended case: one hot route).
func BenchmarkRecordParallel(b *testing.B) {
	r := New()
	rt := r.Routes("production", "").Pattern("GET /v1/hubs/{id}")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			done := r.InFlight()
			r.Observe(rt, "GET", 200, OpNone, 3*time.Millisecond)
			done()
		}
	})
}

// BenchmarkWithLabelValues is what the route's observation would cost
// through the histogram vector's WithLabelValues on every request, the
// alternative to the route's resolved cells.
func BenchmarkWithLabelValues(b *testing.B) {
	r := New()
	b.ReportAllocs()
	for b.Loop() {
		r.durations.WithLabelValues("production", REST, "/v1/hubs/{id}", "GET", "2xx", "").Observe(0.003)
	}
}

// BenchmarkPattern is the lookup of a request's route by the pattern its
// ServeMux matched.
func BenchmarkPattern(b *testing.B) {
	rs := New().Routes("sandbox", "/sandbox")
	rs.Pattern("GET /sandbox/v1/hubs/{id}")
	b.ReportAllocs()
	for b.Loop() {
		_ = rs.Pattern("GET /sandbox/v1/hubs/{id}")
	}
}

// BenchmarkKind is a statement's classification.
func BenchmarkKind(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = kindOf(`SELECT "hubs"."id" FROM "hubs" WHERE "hubs"."id" = ?`)
	}
}
