package tracing

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// With tracing off, what stays on the request path — the event log's
// TraceParent, the pgx batch's StartStatement, the log handler over a
// context without a span, OpenDB's plain sql.Open — allocates nothing and
// makes no span.
func TestOffPathAllocatesNothing(t *testing.T) {
	ctx := context.WithValue(context.Background(), struct{ k int }{1}, "request")
	h := LogHandler(slog.DiscardHandler)
	rec := slog.Record{Message: "request"}
	for name, f := range map[string]func(){
		"TraceParent":     func() { _ = TraceParent(ctx) },
		"StartStatement":  func() { EndStatement(StartStatement(ctx, "sqlite", "SELECT 1"), nil) },
		"FromTraceParent": func() { _ = FromTraceParent(ctx, nil) },
		"LogHandler":      func() { _ = h.Handle(ctx, rec) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s allocates %.0f times per call with tracing off", name, n)
		}
	}
	if tp := TraceParent(ctx); tp != nil {
		t.Errorf("TraceParent without a span: %q", *tp)
	}
	var p *Provider
	if p.Tracer() != nil || p.TracerProvider() != nil || p.Shutdown(ctx) != nil {
		t.Error("a nil Provider is not off")
	}
}

// Start is off unless an endpoint is configured, and refuses what it does
// not support rather than exporting nowhere.
func TestStartFromEnvironment(t *testing.T) {
	for _, c := range []struct {
		env    map[string]string
		on     bool
		err    bool
		target string
	}{
		{env: map[string]string{}},
		{env: map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"}, on: true, target: "http://127.0.0.1:4318/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9999/traces"}, on: true, target: "http://127.0.0.1:9999/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318"}, err: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_SAMPLER": "sometimes"}, err: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, err: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}, on: true, target: "http://127.0.0.1:4318/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_RESOURCE_ATTRIBUTES": "novalue"}, err: true},
	} {
		p, err := Start(func(k string) string { return c.env[k] }, "test")
		if (err != nil) != c.err || (p != nil) != c.on {
			t.Errorf("%v: provider %v, err %v", c.env, p != nil, err)
		}
		if p != nil {
			if p.Endpoint != c.target {
				t.Errorf("%v: endpoint %q, want %q", c.env, p.Endpoint, c.target)
			}
			_ = p.Shutdown(context.Background())
		}
	}
}

// A traceparent stored with an event comes back as the same remote span
// context, which Inject sends on.
func TestTraceParentRoundTrip(t *testing.T) {
	s := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := FromTraceParent(context.Background(), &s)
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsRemote() || sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("span context %+v", sc)
	}
	if got := TraceParent(ctx); got == nil || *got != s {
		t.Errorf("TraceParent: %v", got)
	}
	h := http.Header{}
	Inject(ctx, h)
	if h.Get("Traceparent") != s {
		t.Errorf("injected %q", h.Get("Traceparent"))
	}
	bad := "00-zz-00f067aa0ba902b7-01"
	if sc := trace.SpanContextFromContext(FromTraceParent(context.Background(), &bad)); sc.IsValid() {
		t.Errorf("a malformed traceparent gave %+v", sc)
	}
}
