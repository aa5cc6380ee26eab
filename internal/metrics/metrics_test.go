package metrics

import (
	"net/http/httptest"
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
