package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// otlpReceiver is a real OTLP/HTTP traces receiver: it decodes each
// ExportTraceServiceRequest with the official OTLP types and keeps its spans.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	services map[string]bool
	bad      []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{services: map[string]bool{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(io.LimitReader(body, 32<<20))
		var msg coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &msg)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
			r.bad = append(r.bad, fmt.Sprintf("%s %s %s: %v", req.Method, req.URL.Path, req.Header.Get("Content-Type"), err))
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		for _, rs := range msg.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					r.services[a.GetValue().GetStringValue()] = true
				}
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

// trace returns the spans received of trace id (hex).
func (r *otlpReceiver) trace(id string) []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range r.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out = append(out, s)
		}
	}
	return out
}

func spanAttr(s *tracepb.Span, key string) (string, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			if v, ok := a.Value.Value.(*commonpb.AnyValue_IntValue); ok {
				return strconv.FormatInt(v.IntValue, 10), true
			}
			return a.Value.GetStringValue(), true
		}
	}
	return "", false
}

// descends reports whether s is, or descends from, the span with id anc.
func descends(spans []*tracepb.Span, s *tracepb.Span, anc []byte) bool {
	byID := map[string]*tracepb.Span{}
	for _, x := range spans {
		byID[string(x.SpanId)] = x
	}
	for n := 0; s != nil && n < 64; n++ {
		if bytes.Equal(s.SpanId, anc) {
			return true
		}
		s = byID[string(s.ParentSpanId)]
	}
	return false
}

// TestTraceAcrossWebhook runs the real server with tracing on (OTEL_*
// pointing at a receiver in this process, every trace sampled), makes a REST
// write with a client's traceparent that a webhook endpoint wants, and finds
// the whole trace at the receiver: the client's span → the HTTP server span
// → its SQL statements, and → the webhook attempt, sent later by the
// dispatcher from the traceparent stored with the event, whose header the
// webhook receiver gets. The request's log line carries the trace id; the
// event's payloads never show the traceparent. Then a GraphQL query (served
// by the fast path) and a mutation have their operation spans.
func TestTraceAcrossWebhook(t *testing.T) {
	otlp := newOTLPReceiver(t)
	var hookMu sync.Mutex
	var hookHeaders []http.Header
	var hookBodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		hookMu.Lock()
		hookHeaders = append(hookHeaders, req.Header.Clone())
		hookBodies = append(hookBodies, string(b))
		hookMu.Unlock()
	}))
	t.Cleanup(hook.Close)

	otel := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.URL,
		"OTEL_TRACES_SAMPLER":         "always_on",
		"OTEL_SERVICE_NAME":           "logistics-trace-test",
		"OTEL_BSP_SCHEDULE_DELAY":     "50",
	}
	var logs apptest.LockedBuffer
	srv := apptest.New(t, apptest.Options{
		Config: func(c *app.Config) { c.WebhookAllowPrivate = true; c.WebhookPoll = 50 * time.Millisecond },
		Env:    func(k string) string { return otel[k] },
		Log:    &logs,
	})
	if srv.App.Tracing == nil {
		t.Fatal("tracing is off with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	base := srv.Base(environment.Production)
	if resp := srv.Do(t, "POST", base+"/v1/webhook-endpoints", map[string]any{"url": hook.URL + "/hook", "event_types": []string{"hub.created"}}, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("register the endpoint: %d %s", resp.StatusCode, resp.Body)
	}

	// A subscriber, open before the write: its hub publishes the event.
	subIDs := make(chan []string, 1)
	go func() {
		ids, _ := sseEvents(t, srv, environment.Production, http.Header{"Authorization": {"Bearer " + srv.Keys[environment.Production]}},
			`subscription { events(types: ["hub.created"]) { id } }`, 1, 100*time.Millisecond)
		subIDs <- ids
	}()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n := 0
		for _, c := range srv.App.Streams.Open() {
			n += c
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription did not open")
		}
	}

	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	h := http.Header{"Traceparent": {"00-" + clientTrace + "-" + clientSpan + "-01"}}
	resp := srv.Do(t, "POST", base+"/v1/hubs", map[string]any{"code": "TRC1", "name": "Traced hub", "kind": "warehouse", "address": map[string]any{"city": "Utrecht", "country": "NL"}}, h)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create hub: %d %s", resp.StatusCode, resp.Body)
	}

	// The webhook attempt, with the trace's traceparent.
	var attemptParent string
	deadline := time.Now().Add(30 * time.Second)
	for attemptParent == "" {
		hookMu.Lock()
		for i, hh := range hookHeaders {
			if strings.Contains(hookBodies[i], `"hub.created"`) {
				attemptParent = hh.Get("Traceparent")
			}
		}
		hookMu.Unlock()
		if attemptParent == "" && time.Now().After(deadline) {
			t.Fatal("the webhook receiver got no hub.created delivery")
		}
		time.Sleep(20 * time.Millisecond)
	}
	parts := strings.Split(attemptParent, "-")
	if len(parts) != 4 || parts[1] != clientTrace {
		t.Fatalf("the attempt's traceparent %q is not in the client's trace %s", attemptParent, clientTrace)
	}
	hookMu.Lock()
	for _, b := range hookBodies {
		if strings.Contains(b, clientTrace) || strings.Contains(b, "trace_parent") || strings.Contains(b, "traceparent") {
			t.Errorf("a webhook payload shows the trace context: %s", b)
		}
	}
	hookMu.Unlock()
	if ev := srv.Do(t, "GET", base+"/v1/events?limit=100", nil, nil); ev.StatusCode != http.StatusOK || bytes.Contains(ev.Body, []byte(clientTrace)) || bytes.Contains(ev.Body, []byte("trace_parent")) {
		t.Errorf("GET /v1/events shows the trace context (or failed): %d %s", ev.StatusCode, ev.Body)
	}
	gql := srv.GraphQL(t, environment.Production, `{ events(first: 50) { edges { node { id type } } } }`, nil)
	if len(gql.Errors) > 0 {
		t.Errorf("events query: %v", gql.Errors)
	}

	// The whole trace at the receiver.
	var spans []*tracepb.Span
	var server, attempt, publish *tracepb.Span
	var sqlUnderServer []*tracepb.Span
	for deadline := time.Now().Add(30 * time.Second); ; {
		_ = srv.App.Tracing.ForceFlush(context.Background())
		spans = otlp.trace(clientTrace)
		server, attempt, publish, sqlUnderServer = nil, nil, nil, nil
		for _, s := range spans {
			switch {
			case s.Kind == tracepb.Span_SPAN_KIND_SERVER && hex.EncodeToString(s.ParentSpanId) == clientSpan:
				server = s
			case s.Name == "webhook attempt":
				attempt = s
			case s.Name == "publish hub.created":
				publish = s
			}
		}
		if server != nil {
			for _, s := range spans {
				if _, ok := spanAttr(s, "db.query.text"); ok && descends(spans, s, server.SpanId) {
					sqlUnderServer = append(sqlUnderServer, s)
				}
			}
		}
		if server != nil && attempt != nil && publish != nil && len(sqlUnderServer) > 0 {
			break
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range spans {
				names = append(names, s.Name)
			}
			t.Fatalf("the trace is incomplete (server span %v, attempt %v, publish %v, %d SQL spans under the server span); spans: %q; bad exports: %q",
				server != nil, attempt != nil, publish != nil, len(sqlUnderServer), names, otlp.bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if route, _ := spanAttr(server, "http.route"); route != "/v1/hubs" || server.Name != "POST /v1/hubs" {
		t.Errorf("server span %q, http.route %q: want POST /v1/hubs", server.Name, route)
	}
	if st, _ := spanAttr(server, "http.response.status_code"); st != "201" {
		t.Errorf("server span status code %q", st)
	}
	if m, _ := spanAttr(server, "http.request.method"); m != "POST" {
		t.Errorf("server span method %q", m)
	}
	insert := false
	for _, s := range sqlUnderServer {
		sys, _ := spanAttr(s, "db.system.name")
		want := "sqlite"
		if apptest.Postgres() {
			want = "postgresql"
		}
		if sys != want {
			t.Errorf("SQL span %q: db.system.name %q, want %q", s.Name, sys, want)
		}
		q, _ := spanAttr(s, "db.query.text")
		insert = insert || (s.Name == "INSERT" && strings.Contains(q, "hubs"))
	}
	if !insert {
		t.Errorf("no INSERT INTO hubs span under the server span among %d SQL spans", len(sqlUnderServer))
	}
	if !descends(spans, attempt, server.SpanId) {
		t.Errorf("the webhook attempt span (parent %x) does not descend from the request's span %x", attempt.ParentSpanId, server.SpanId)
	}
	if hex.EncodeToString(attempt.SpanId) != parts[2] {
		t.Errorf("the attempt's traceparent names span %s, the attempt span is %x", parts[2], attempt.SpanId)
	}
	if !descends(spans, publish, server.SpanId) || publish.Kind != tracepb.Span_SPAN_KIND_PRODUCER {
		t.Errorf("the publish span (parent %x, kind %v) does not descend from the request's span %x", publish.ParentSpanId, publish.Kind, server.SpanId)
	}
	if ids := <-subIDs; len(ids) != 1 {
		t.Errorf("the subscriber got %v", ids)
	}
	if attempt.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("attempt span kind %v", attempt.Kind)
	}
	if st, _ := spanAttr(attempt, "http.response.status_code"); st != "200" {
		t.Errorf("attempt span status code %q", st)
	}
	if typ, _ := spanAttr(attempt, "logistics.event.type"); typ != "hub.created" {
		t.Errorf("attempt span event type %q", typ)
	}
	otlp.mu.Lock()
	if !otlp.services["logistics-trace-test"] {
		t.Errorf("service.name: got %v", otlp.services)
	}
	otlp.mu.Unlock()
	// The request's log line carries its trace.
	found := false
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, "msg=request") && strings.Contains(line, "path=/v1/hubs") && strings.Contains(line, "method=POST") {
			found = true
			if !strings.Contains(line, "trace_id="+clientTrace) || !strings.Contains(line, "span_id="+hex.EncodeToString(server.SpanId)) {
				t.Errorf("the request's log line lacks its trace_id/span_id: %s", line)
			}
		}
	}
	if !found {
		t.Errorf("no request line for POST /v1/hubs in the logs")
	}

	// GraphQL: a query the fast path serves, and a mutation, each in its
	// own trace with its operation span under the HTTP span.
	served := srv.App.FastPath.Served.Load()
	for _, c := range []struct {
		trace, doc, name, typ string
		fast                  bool
	}{
		{"5bf92f3577b34da6a3ce929d0e0e4737", `query TracedHubs { hubs(first: 5) { edges { node { id code } } } }`, "TracedHubs", "query", true},
		{"6bf92f3577b34da6a3ce929d0e0e4738", `mutation TracedCreate { createHub(input: {code: "TRC2", name: "Traced two", country: "NL"}) { id } }`, "TracedCreate", "mutation", false},
	} {
		gr := srv.GraphQLWith(t, environment.Production, c.doc, nil, http.Header{"Traceparent": {"00-" + c.trace + "-" + clientSpan + "-01"}})
		if len(gr.Errors) > 0 {
			t.Fatalf("%s: %v", c.name, gr.Errors)
		}
		if c.fast && srv.App.FastPath.Served.Load() == served {
			t.Errorf("%s was not served by the fast path", c.name)
		}
		var op, httpSpan *tracepb.Span
		var sqlUnder int
		for deadline := time.Now().Add(30 * time.Second); ; {
			_ = srv.App.Tracing.ForceFlush(context.Background())
			ts := otlp.trace(c.trace)
			op, httpSpan, sqlUnder = nil, nil, 0
			for _, s := range ts {
				if s.Name == c.typ+" "+c.name {
					op = s
				}
				if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
					httpSpan = s
				}
			}
			if op != nil {
				for _, s := range ts {
					if _, ok := spanAttr(s, "db.query.text"); ok && bytes.Equal(s.ParentSpanId, op.SpanId) {
						sqlUnder++
					}
				}
			}
			if op != nil && httpSpan != nil && sqlUnder > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: operation span %v, HTTP span %v, %d SQL spans under the operation", c.name, op != nil, httpSpan != nil, sqlUnder)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !bytes.Equal(op.ParentSpanId, httpSpan.SpanId) {
			t.Errorf("%s: the operation span's parent %x is not the HTTP span %x", c.name, op.ParentSpanId, httpSpan.SpanId)
		}
		if v, _ := spanAttr(op, "graphql.operation.name"); v != c.name {
			t.Errorf("%s: graphql.operation.name %q", c.name, v)
		}
		if v, _ := spanAttr(op, "graphql.operation.type"); v != c.typ {
			t.Errorf("%s: graphql.operation.type %q", c.name, v)
		}
		if route, _ := spanAttr(httpSpan, "http.route"); route != "/graphql" {
			t.Errorf("%s: http.route %q", c.name, route)
		}
	}
}
