package auth_test

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
)

// limited starts two instances over the same databases with a budget of 4
// requests per key (refilling one per 100 s), edited by cfg.
func limited(t *testing.T, cfg func(*app.Config)) (*apptest.Server, *apptest.Server) {
	t.Helper()
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.RateLimit, c.RateBurst = 0.01, 4
		cfg(c)
	}})
	return srv, srv.Twin(t)
}

// status sends GET /v1/status with the test's key and returns the response.
func status(t *testing.T, s *apptest.Server) *apptest.Response {
	t.Helper()
	return s.Do(t, http.MethodGet, s.URL+"/v1/status", nil, nil)
}

// tryLogin tries a wrong password for email. Tests use the owner's email:
// its hash has apptest's minimum bcrypt cost, while an unknown email is
// compared with a full-cost hash (slow enough on a busy machine for the
// account's budget to refill, one attempt per 12 s, between attempts).
func tryLogin(t *testing.T, s *apptest.Server, email string) *apptest.Response {
	t.Helper()
	return s.Do(t, http.MethodPost, s.URL+"/console/api/login", map[string]string{"email": email, "password": "wrong"}, apptest.Anonymous())
}

// refused checks a 429 with a Retry-After of at least a second.
func refused(t *testing.T, what string, r *apptest.Response) {
	t.Helper()
	if r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("%s: %d, want 429: %s", what, r.StatusCode, r.Body)
	}
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("%s: Retry-After %q", what, r.Header.Get("Retry-After"))
	}
}

// TestSharedRateLimitsRedis: with --redis-url, two instances share one
// budget per key (4 requests, whichever instance serves them, with
// RateLimit-Remaining counting down across both) and one sign-in budget per
// account (5 attempts).
func TestSharedRateLimitsRedis(t *testing.T) {
	url, prefix := apptest.Redis(t)
	a, b := limited(t, func(c *app.Config) { c.RedisURL, c.RedisPrefix = url, prefix })
	for i, s := range []*apptest.Server{a, b, a, b} {
		r := status(t, s)
		if r.StatusCode != http.StatusOK || r.Header.Get("RateLimit-Limit") != "4" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(3-i) {
			t.Fatalf("request %d: %d, limit %q, remaining %q", i+1, r.StatusCode, r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
		}
		if reset, _ := strconv.Atoi(r.Header.Get("RateLimit-Reset")); reset < 90*(i+1) {
			t.Fatalf("request %d: RateLimit-Reset %q, want about %d s", i+1, r.Header.Get("RateLimit-Reset"), 100*(i+1))
		}
	}
	for _, s := range []*apptest.Server{a, b} {
		r := status(t, s)
		refused(t, "the fifth request", r)
		if retry, _ := strconv.Atoi(r.Header.Get("Retry-After")); retry < 90 {
			t.Fatalf("Retry-After %d, want about 100 s (one request per 100 s)", retry)
		}
	}
	for i, s := range []*apptest.Server{a, b, a, b, a} {
		if r := tryLogin(t, s, a.AdminEmail); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("sign-in attempt %d: %d %s", i+1, r.StatusCode, r.Body)
		}
	}
	refused(t, "the sixth sign-in attempt", tryLogin(t, b, strings.ToUpper(a.AdminEmail)+" "))
	refused(t, "the seventh sign-in attempt", tryLogin(t, a, a.AdminEmail))
	if r := tryLogin(t, a, "other@example.com"); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("another account: %d %s", r.StatusCode, r.Body)
	}
}

// TestRateLimitsInMemory: without --redis-url each instance keeps its own
// budgets (documented: N instances give a key N times the rate), with the
// same headers.
func TestRateLimitsInMemory(t *testing.T) {
	a, b := limited(t, func(*app.Config) {})
	for _, s := range []*apptest.Server{a, b} {
		for i := range 4 {
			r := status(t, s)
			if r.StatusCode != http.StatusOK || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(3-i) {
				t.Fatalf("request %d: %d, remaining %q", i+1, r.StatusCode, r.Header.Get("RateLimit-Remaining"))
			}
		}
		refused(t, "the fifth request to one instance", status(t, s))
		for i := range 5 {
			if r := tryLogin(t, s, a.AdminEmail); r.StatusCode != http.StatusUnauthorized {
				t.Fatalf("sign-in attempt %d: %d %s", i+1, r.StatusCode, r.Body)
			}
		}
		refused(t, "the sixth sign-in attempt to one instance", tryLogin(t, s, a.AdminEmail))
	}
}

// TestRateLimitsRedisDown: when Redis does not answer, each instance limits
// in its own memory (the failure mode we chose over failing open or
// closed), answers without waiting on Redis, and counts the failures.
func TestRateLimitsRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "redis://" + ln.Addr().String() + "/0"
	ln.Close() // nothing listens there now
	a, b := limited(t, func(c *app.Config) { c.RedisURL = dead })
	for _, s := range []*apptest.Server{a, b} {
		for i := range 4 {
			start := time.Now()
			r := status(t, s)
			if r.StatusCode != http.StatusOK || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(3-i) {
				t.Fatalf("request %d: %d, remaining %q", i+1, r.StatusCode, r.Header.Get("RateLimit-Remaining"))
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("request %d took %s with Redis down", i+1, el)
			}
		}
		refused(t, "the fifth request with Redis down", status(t, s))
	}
	resp, err := http.Get(a.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var n float64 = -1
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "logistics_rate_limit_redis_errors_total "); ok {
			n, _ = strconv.ParseFloat(v, 64)
		}
	}
	if n < 1 {
		t.Fatalf("logistics_rate_limit_redis_errors_total = %v, want at least 1", n)
	}
}
