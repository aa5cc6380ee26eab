package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// BenchmarkRequestMetrics serves requests through the whole handler (no
// network) to count what a request allocates, the metrics' share included:
// compare its allocs/op with a build without them.
func BenchmarkRequestMetrics(b *testing.B) {
	srv := apptest.New(b)
	id := srv.Create(b, environment.Production, "/v1/hubs", map[string]any{"code": "BM1", "name": "Bench", "address": map[string]any{"country": "NL"}})
	h := srv.App.Handler()
	auth := "Bearer " + srv.Keys[environment.Production]
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct{ name, method, path, body string }{
		{"rest", http.MethodGet, "/v1/hubs/" + id, ""},
		{"graphql", http.MethodPost, "/graphql", `{"query":"{ hubs(first: 1) { totalCount } }"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
				req.Host = host
				req.Header.Set("Authorization", auth)
				if c.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s %s: %d %s", c.method, c.path, rec.Code, rec.Body)
				}
			}
		})
	}
}
