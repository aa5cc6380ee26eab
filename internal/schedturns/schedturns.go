// Package schedturns keeps Go's scheduler taking turns among the requests
// of a saturated server: each request hands it a few goroutines that do
// nothing, as it begins and as it ends.
//
// Why: a goroutine that was preempted (it ran its 10 ms), or that comes
// back from a cgo call (SQLite's steps) after its P was handed to another
// thread, waits in the scheduler's global run queue. A P looks there only
// when its own queue is empty, which under saturation it rarely is, or at
// every 61st goroutine it starts from its own queue — and a goroutine
// woken by the one that runs (net/http's reader, a channel) runs next in
// the same time slice without counting as a start. A request's work here
// is long stretches of Go and cgo with such hand-offs, so the count grew
// slowly and a request that landed in the global queue waited there:
// SQLite W3 REST's p99 was 2–5× the benchmark floor's at a median latency
// below the floor's, the floor (database/sql with a cancellable context:
// a goroutine per statement) starting 2.5× as many goroutines a second.
// A runtime trace put it on the global queue: requests woken by the
// network poller waited 43 ms there against the floor's 9.5, preempted ones
// 155 against 21, ones back from cgo 162 against 36. This family of
// unfairness is known to the Go runtime's maintainers (golang/go#28701,
// golang/go#52934).
//
// A goroutine started goes to its P's next slot and pushes the one there
// to the back of the P's queue, where starting it counts: each request's
// turns move the count on, in proportion to the load, which is when it
// matters. Each costs a goroutine start, run and exit from the runtime's
// free list: 3.5 µs for a request's 3 and 3 (BenchmarkTurns), 2% of W6's
// CPU per request (one order by id, ~160 µs), 0.2% of W3's. Turns 0
// leaves the handler as it is.
package schedturns

import "net/http"

// DefaultTurns is the goroutines handed to the scheduler as a request
// begins and again as it ends: with 3, SQLite W3's p99 went from 2.1–5×
// the floor's to 0.4–1.2× in interleaved runs; with 1, to 1.1–1.3×.
const DefaultTurns = 3

// Middleware hands the scheduler turns goroutines before next serves a
// request and turns more after it.
func Middleware(turns int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if turns <= 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			give(turns)
			defer give(turns)
			next.ServeHTTP(w, r)
		})
	}
}

// give starts n goroutines that return at once.
func give(n int) {
	for range n {
		go func() {}()
	}
}
