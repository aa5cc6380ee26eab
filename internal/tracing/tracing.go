// Package tracing is the service's OpenTelemetry tracing: the tracer
// provider configured from the standard OTEL_* variables (off unless an OTLP
// endpoint is set), and the pieces that make spans — the HTTP middleware
// (http.go), the database/sql driver wrapper (sql.go), the log handler that
// puts trace ids on a request's log lines (log.go) — and that carry a trace
// context through the event log (TraceParent, FromTraceParent).
//
// Off, nothing of it is installed: a nil *Provider is the off state, and
// every component that traces takes a nil tracer as "do not" (the request
// path then runs exactly the code it ran before tracing existed).
package tracing

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of every span the service makes.
const Name = "logistics"

// Provider is tracing turned on: the SDK's tracer provider exporting over
// OTLP/HTTP. A nil *Provider is tracing off.
type Provider struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	// Endpoint is where spans are sent (for the start-up log line).
	Endpoint string
	// Sampler describes the sampler in use (for the start-up log line).
	Sampler string
}

// Start configures tracing from the OTEL_* variables read through getenv.
// Tracing is on when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT is set, unless OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none; otherwise Start returns nil (off). Only
// OTLP over HTTP with protobuf is supported. The SDK itself reads the
// remaining OTEL_* variables of the process (headers, timeouts, queue sizes).
func Start(getenv func(string) string, version string) (*Provider, error) {
	if getenv == nil {
		return nil, nil
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "", "otlp":
	case "none":
		return nil, nil
	default:
		return nil, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q: only otlp (or none) is supported", exp)
	}
	endpoint, err := endpointOf(getenv)
	if err != nil || endpoint == "" {
		return nil, err
	}
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return nil, fmt.Errorf("tracing: OTLP protocol %q: only http/protobuf is supported", proto)
	}
	sampler, desc, err := samplerOf(getenv("OTEL_TRACES_SAMPLER"), getenv("OTEL_TRACES_SAMPLER_ARG"))
	if err != nil {
		return nil, err
	}
	exporter, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	var bsp []sdktrace.BatchSpanProcessorOption
	if v := getenv("OTEL_BSP_SCHEDULE_DELAY"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("tracing: OTEL_BSP_SCHEDULE_DELAY=%q: want milliseconds (> 0)", v)
		}
		bsp = append(bsp, sdktrace.WithBatchTimeout(time.Duration(ms)*time.Millisecond))
	}
	res, err := resourceOf(getenv, version)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exporter, bsp...),
		sdktrace.WithSampler(sampler),
		sdktrace.WithResource(res),
	)
	return &Provider{tp: tp, tracer: tp.Tracer(Name), Endpoint: endpoint, Sampler: desc}, nil
}

// endpointOf is the URL spans are POSTed to: the traces endpoint as it is,
// or the base endpoint with /v1/traces (the specification's rule).
func endpointOf(getenv func(string) string) (string, error) {
	raw, name := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	if raw == "" {
		raw, name = getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "OTEL_EXPORTER_OTLP_ENDPOINT"
		if raw == "" {
			return "", nil
		}
		raw = strings.TrimSuffix(raw, "/") + "/v1/traces"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("tracing: %s=%q: want an http:// or https:// URL", name, raw)
	}
	return u.String(), nil
}

// samplerOf is the sampler OTEL_TRACES_SAMPLER names (default
// parentbased_always_on, as the specification says).
func samplerOf(name, arg string) (sdktrace.Sampler, string, error) {
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("tracing: OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), "parentbased_always_on", nil
	case "always_on":
		return sdktrace.AlwaysSample(), name, nil
	case "always_off":
		return sdktrace.NeverSample(), name, nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), name, nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, "", err
		}
		s := sdktrace.TraceIDRatioBased(r)
		if name == "parentbased_traceidratio" {
			s = sdktrace.ParentBased(s)
		}
		return s, name + "=" + strconv.FormatFloat(r, 'g', -1, 64), nil
	}
	return nil, "", fmt.Errorf("tracing: OTEL_TRACES_SAMPLER=%q is not supported (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)", name)
}

// resourceOf describes this process: OTEL_SERVICE_NAME (default
// logistics), the version, and OTEL_RESOURCE_ATTRIBUTES (key=value,…,
// values percent-encoded).
func resourceOf(getenv func(string) string, version string) (*resource.Resource, error) {
	var attrs []attribute.KeyValue
	if v := getenv("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		for pair := range strings.SplitSeq(v, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %q is not key=value", pair)
			}
			dec, err := url.PathUnescape(val)
			if err != nil {
				return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %q: %w", pair, err)
			}
			attrs = append(attrs, attribute.String(k, dec))
		}
	}
	service := getenv("OTEL_SERVICE_NAME")
	if service == "" {
		service = "logistics"
		for _, a := range attrs {
			if a.Key == "service.name" {
				service = a.Value.AsString()
			}
		}
	}
	attrs = append(attrs, attribute.String("service.name", service), attribute.String("service.version", version))
	return resource.NewSchemaless(attrs...), nil
}

// Tracer is the service's tracer, nil when p is (tracing off).
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return nil
	}
	return p.tracer
}

// TracerProvider is the SDK's provider (nil when tracing is off).
func (p *Provider) TracerProvider() trace.TracerProvider {
	if p == nil {
		return nil
	}
	return p.tp
}

// Shutdown sends the spans still queued and stops the exporter.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

// ForceFlush sends the spans queued so far (tests).
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.ForceFlush(ctx)
}

// Propagator is the W3C Trace Context propagation (traceparent, tracestate)
// accepted from clients and sent on webhook attempts.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// TraceParent returns the W3C traceparent of the span in ctx, nil when
// there is none (always, with tracing off): what an event row stores so that
// its webhook attempts and subscription messages continue the trace.
func TraceParent(ctx context.Context) *string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	s := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	return &s
}

// FromTraceParent returns ctx with the remote span context a stored
// traceparent names; ctx unchanged when it is nil or malformed.
func FromTraceParent(ctx context.Context, traceParent *string) context.Context {
	if traceParent == nil || *traceParent == "" {
		return ctx
	}
	return Propagator.Extract(ctx, propagation.HeaderCarrier(http.Header{"Traceparent": {*traceParent}}))
}

// Inject writes the span context of ctx to h as traceparent (and
// tracestate).
func Inject(ctx context.Context, h http.Header) {
	Propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// errString is a short error text for a span status.
func errString(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}
