package metrics

import (
	"testing"
	"time"
)

// BenchmarkRecord is what every request pays for the metrics: the in-flight
// gauge up and down, and one observation of an existing series.
func BenchmarkRecord(b *testing.B) {
	r := New()
	b.ReportAllocs()
	for b.Loop() {
		done := r.InFlight()
		r.Observe("production", "GET", "rest", 200, 3*time.Millisecond)
		done()
	}
}

// BenchmarkRecordParallel is BenchmarkRecord from every P at once, on the
// same series (the contended case: one hot route).
func BenchmarkRecordParallel(b *testing.B) {
	r := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			done := r.InFlight()
			r.Observe("production", "GET", "rest", 200, 3*time.Millisecond)
			done()
		}
	})
}
