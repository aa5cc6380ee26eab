package schedturns

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
)

// created is the count of goroutines the process has started.
func created(t *testing.T) uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("the runtime has no %s", s[0].Name)
	}
	return s[0].Value.Uint64()
}

// TestMiddlewareGivesTurns: each request starts turns goroutines before
// the handler and turns after it, also when the handler panics (net/http
// recovers it); 0 turns returns the handler itself.
func TestMiddlewareGivesTurns(t *testing.T) {
	// The runtime starts its collector's workers at the first collection:
	// a collection now keeps them out of the counts below.
	runtime.GC()
	var before uint64
	var during uint64
	h := Middleware(3)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		during = created(t)
		if r.URL.Path == "/panic" {
			panic(http.ErrAbortHandler)
		}
	}))
	for _, path := range []string{"/", "/panic"} {
		before = created(t)
		func() {
			defer func() { _ = recover() }()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		}()
		after := created(t)
		// Other goroutines of the test binary may start meanwhile: at least.
		if during-before < 3 || after-during < 3 {
			t.Errorf("%s: %d goroutines started before the handler, %d after; want 3 and 3", path, during-before, after-during)
		}
	}

	plain := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if got := Middleware(0)(plain); got == nil {
		t.Fatal("Middleware(0) returned nil")
	} else {
		before = created(t)
		got.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		if n := created(t) - before; n != 0 {
			t.Errorf("0 turns: %d goroutines started; want none", n)
		}
	}
}

// BenchmarkTurns: what a request's turns cost the request's goroutine
// (starting them; they run when it next yields).
//
//	go test ./internal/schedturns -run '^$' -bench Turns -benchmem
func BenchmarkTurns(b *testing.B) {
	for _, turns := range []int{0, DefaultTurns} {
		h := Middleware(turns)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		w, r := httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)
		b.Run(strconv.Itoa(turns), func(b *testing.B) {
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}
