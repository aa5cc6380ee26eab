package tracing

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// Middleware makes a server span per request with otelhttp (method,
// status, address…), continuing the trace of a W3C traceparent the client
// sent, and names it after the route that served it (Route). Install it
// only when tracing is on: otelhttp wraps every request's writer and body
// even with a no-op provider.
func (p *Provider) Middleware(next http.Handler) http.Handler {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := &routeHolder{}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), routeKey{}, h)))
		if h.route == "" {
			return
		}
		span := trace.SpanFromContext(r.Context())
		span.SetName(r.Method + " " + h.route)
		span.SetAttributes(attribute.String("http.route", h.route))
	})
	return otelhttp.NewHandler(inner, "http",
		otelhttp.WithTracerProvider(p.tp),
		otelhttp.WithPropagators(Propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()), // the service's metrics are internal/metrics'
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
	)
}

type routeKey struct{}

// routeHolder keeps the most specific route pattern a request was served
// by: the innermost mux returns first and writes it.
type routeHolder struct{ route string }

// Route wraps a ServeMux so that the pattern it matched becomes the
// request span's route (http.route), unless a mux inside it matched one
// first. ServeMux sets Request.Pattern on the request it was handed, so the
// pattern is read after it returns; the middleware in between copy the
// request, hence one wrapper per mux. With tracing off it is not installed.
func Route(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if h, _ := r.Context().Value(routeKey{}).(*routeHolder); h != nil && h.route == "" && r.Pattern != "" && r.Pattern != "/" {
			route := r.Pattern
			if i := strings.IndexByte(route, ' '); i >= 0 {
				route = route[i+1:] // "GET /v1/orders/{id}": the method is the span's own attribute
			}
			h.route = route
		}
	})
}
