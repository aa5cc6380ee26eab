package graph_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/graph"
	"logistics/internal/app"
	"logistics/internal/apptest"
)

// floodResult is a response as the flood tests read it.
type floodResult struct {
	status int
	raw    []byte
	errors []map[string]any
	data   json.RawMessage
}

func (r floodResult) reason(i int) string {
	if i < 0 {
		i += len(r.errors)
	}
	if i < 0 || i >= len(r.errors) {
		return ""
	}
	ext, _ := r.errors[i]["extensions"].(map[string]any)
	if s, _ := ext["reason"].(string); s != "" {
		return s
	}
	s, _ := ext["code"].(string)
	return s
}

func postFlood(t *testing.T, srv *apptest.Server, query, accept string, h http.Header) floodResult {
	t.Helper()
	hd := http.Header{"Accept": {accept}, "Content-Type": {"application/json"}}
	for k, v := range h {
		hd[k] = v
	}
	resp := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": query}, hd)
	r := floodResult{status: resp.StatusCode, raw: resp.Body}
	var body struct {
		Data   json.RawMessage  `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		t.Fatalf("%d, not JSON: %.300s", resp.StatusCode, resp.Body)
	}
	r.errors, r.data = body.Errors, body.Data
	return r
}

// checkBounded holds a response to what every response promises: no 5xx,
// at most graph.MaxErrors errors and then one TOO_MANY_ERRORS, and a body
// within the response size limit (plus the one error that replaces a
// larger one).
func checkBounded(t *testing.T, r floodResult, maxBytes int, what string) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("%s: status %d: %.300s", what, r.status, r.raw)
	}
	if len(r.errors) > graph.MaxErrors+1 {
		t.Fatalf("%s: %d errors", what, len(r.errors))
	}
	if len(r.errors) == graph.MaxErrors+1 && r.reason(-1) != "TOO_MANY_ERRORS" {
		t.Fatalf("%s: %d errors, the last not TOO_MANY_ERRORS: %.300s", what, len(r.errors), r.raw[len(r.raw)-300:])
	}
	for i := range len(r.errors) - 1 {
		if r.reason(i) == "TOO_MANY_ERRORS" {
			t.Fatalf("%s: TOO_MANY_ERRORS is error %d of %d", what, i, len(r.errors))
		}
	}
	if len(r.raw) > maxBytes+512 {
		t.Fatalf("%s: a body of %d bytes, over the limit of %d", what, len(r.raw), maxBytes)
	}
}

// TestErrorAmplification replays the probe that turned 48 KB of directives
// into 47,999 errors and 8.3 MB, and its relatives: every count a document
// can multiply errors by is refused before validation with an error that
// names its limit, validation and execution list at most 100 errors (then
// TOO_MANY_ERRORS), and the response size limit covers errors as well as
// data — the same through the fast path and gqlgen, under both media types
// (400 under application/graphql-response+json, 200 under
// application/json, for a request refused before execution).
func TestErrorAmplification(t *testing.T) {
	srv := apptest.New(t)
	costFixture(t, srv, 2)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	n := func(k int, s string) string { return strings.Repeat(s, k) }
	numbered := func(k int, f string) string { // f with # for the number
		var b strings.Builder
		for i := range k {
			b.WriteString(strings.ReplaceAll(f, "#", strconv.Itoa(i)))
		}
		return b.String()
	}

	for _, tc := range []struct {
		name, query string
		reason      string // of the first error
		errors      int    // how many (MaxErrors+1: capped)
	}{
		{"the probe: 24,000 unknown directives", `{ hubs(first: 1) { totalCount ` + n(24_000, "@a ") + `} }`, "DIRECTIVE_LIMIT_EXCEEDED", 1},
		{"directives one over the limit", `{ hubs(first: 1) { totalCount ` + n(graph.MaxDirectives+1, "@include(if: true) ") + `} }`, "DIRECTIVE_LIMIT_EXCEEDED", 1},
		{"directives on fragments and variables count", `query($v: Boolean @a) { hubs(first: 1) { ...F @skip(if: false) } } fragment F on HubConnection @a { totalCount ` + n(graph.MaxDirectives-2, "@include(if: $v) ") + `}`, "DIRECTIVE_LIMIT_EXCEEDED", 1},
		{"unknown directives within the limit: validation's errors capped", `{ hubs(first: 1) { totalCount ` + n(graph.MaxDirectives, "@a ") + `} }`, "GRAPHQL_VALIDATION_FAILED", graph.MaxErrors + 1},
		{"arguments", `{ hubs(` + n(graph.MaxArguments+1, "first: 1 ") + `) { totalCount } }`, "ARGUMENT_LIMIT_EXCEEDED", 1},
		{"fragment spreads", `{ hubs { ` + n(graph.MaxFragments, "...F ") + `} } fragment F on HubConnection { totalCount }`, "FRAGMENT_LIMIT_EXCEEDED", 1},
		{"fragment definitions", `{ hubs { totalCount } } ` + numbered(graph.MaxFragments/2, "fragment F# on Hub { ...G } ") + ` fragment G on Hub { id }`, "FRAGMENT_LIMIT_EXCEEDED", 1},
		{"variable definitions", `query(` + numbered(graph.MaxVariables+1, "$v#: Int ") + `) { hubs { totalCount } }`, "VARIABLE_LIMIT_EXCEEDED", 1},
		{"fields (aliases count)", `{ hubs { ` + numbered(graph.DefaultOptions.MaxFields+1, "a#: totalCount ") + `} }`, "FIELD_LIMIT_EXCEEDED", 1},
		{"unused variables within the limit", `query(` + numbered(graph.MaxVariables, "$v#: Int ") + `) { hubs { totalCount } }`, "GRAPHQL_VALIDATION_FAILED", graph.MaxErrors + 1},
		{"unknown arguments within the limit", `{ hubs(` + numbered(graph.MaxArguments/2, "x#: 1 ") + `) { totalCount } }`, "GRAPHQL_VALIDATION_FAILED", graph.MaxErrors + 1},
		// Each pair of conflicting fields is an error: 62,001 of them for
		// 498 fields, within the field limit, before the response name
		// limit; 2,500 within it.
		{"one response name for many fields", `{ hubs { ` + n(249, "a: totalCount a: __typename ") + `} }`, "RESPONSE_NAME_LIMIT_EXCEEDED", 1},
		{"one response name through fragments", `{ hubs { ` + numbered(60, "...F# ") + `} } ` + numbered(60, "fragment F# on HubConnection { a: totalCount ... on HubConnection { a: totalCount } } "), "RESPONSE_NAME_LIMIT_EXCEEDED", 1},
		{"conflicting fields", `{ hubs { ` + n(graph.MaxSameName/2, "a: totalCount a: __typename ") + `} }`, "GRAPHQL_VALIDATION_FAILED", graph.MaxErrors + 1},
		{"unknown members of an input", `{ hubs(where: {` + numbered(2000, "x#: 1 ") + `}) { totalCount } }`, "GRAPHQL_VALIDATION_FAILED", graph.MaxErrors + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bodies []string
			for _, s := range []*apptest.Server{srv, gqlgen} {
				for _, accept := range []string{"application/graphql-response+json", "application/json"} {
					start := time.Now()
					r := postFlood(t, s, tc.query, accept, nil)
					checkBounded(t, r, graph.DefaultOptions.MaxResponseBytes, accept)
					want := http.StatusBadRequest
					if accept == "application/json" {
						want = http.StatusOK
					}
					if r.status != want || r.data != nil {
						t.Fatalf("%s: status %d (want %d), data %s: %.300s", accept, r.status, want, r.data, r.raw)
					}
					if r.reason(0) != tc.reason || len(r.errors) != tc.errors {
						t.Fatalf("%s: %d errors, the first %q; want %d, %q: %.400s", accept, len(r.errors), r.reason(0), tc.errors, tc.reason, r.raw)
					}
					if tc.errors == 1 && !strings.Contains(fmt.Sprint(r.errors[0]["message"]), "limit is") {
						t.Errorf("the error does not name its limit: %s", r.raw)
					}
					if took := time.Since(start); took > 5*time.Second {
						t.Errorf("%s: answered in %v", accept, took)
					}
					bodies = append(bodies, string(r.raw))
				}
			}
			if bodies[0] != bodies[2] || bodies[1] != bodies[3] {
				t.Errorf("the fast path and gqlgen answer differently:\n%.300s\n%.300s", bodies[0], bodies[2])
			}
		})
	}

	// Execution errors: a key that may read orders but not hubs gets
	// FORBIDDEN for each of 200 aliased hubs (non-null: data is null). The
	// response lists 100 errors and TOO_MANY_ERRORS,
	// the same through the fast path (which declines what the key may not
	// read) and gqlgen.
	key := scopedKey(t, srv, "orders:read")
	q := `{ orders(first: 1) { totalCount } ` + numbered(200, "h#: hubs(first: 1) { totalCount } ") + `}`
	var bodies []string
	for _, s := range []*apptest.Server{srv, gqlgen} {
		r := postFlood(t, s, q, "application/graphql-response+json", key)
		checkBounded(t, r, graph.DefaultOptions.MaxResponseBytes, "execution errors")
		if r.status != http.StatusOK || len(r.errors) != graph.MaxErrors+1 || r.reason(0) != "insufficient_scope" ||
			r.data == nil {
			t.Fatalf("execution errors: %d, %d errors, first %q: %.500s", r.status, len(r.errors), r.reason(0), r.data)
		}
		bodies = append(bodies, string(r.raw))
	}
	if bodies[0] != bodies[1] {
		t.Errorf("the fast path and gqlgen answer differently:\n%.300s\n%.300s", bodies[0], bodies[1])
	}

	// The size limit covers the whole body: errors (before execution and
	// during it) and data alike, each replaced by the one limit error.
	small := srv.Twin(t, func(c *app.Config) { c.MaxRespBytes = 4000 })
	smallGQL := srv.Twin(t, func(c *app.Config) { c.MaxRespBytes = 4000; c.NoFastPath = true })
	for _, s := range []*apptest.Server{small, smallGQL} {
		r := postFlood(t, s, `{ hubs(first: 1) { totalCount `+n(graph.MaxDirectives, "@a ")+`} }`, "application/graphql-response+json", nil)
		checkBounded(t, r, 4000, "validation errors over the size limit")
		if r.status != http.StatusBadRequest || len(r.errors) != 1 || r.reason(0) != "RESPONSE_SIZE_LIMIT_EXCEEDED" || r.data != nil {
			t.Errorf("validation errors over the size limit: %d %.300s", r.status, r.raw)
		}
		r = postFlood(t, s, q, "application/graphql-response+json", key)
		checkBounded(t, r, 4000, "execution errors over the size limit")
		if r.status != http.StatusOK || len(r.errors) != 1 || r.reason(0) != "RESPONSE_SIZE_LIMIT_EXCEEDED" || string(r.data) != "null" {
			t.Errorf("execution errors over the size limit: %d %.300s", r.status, r.raw)
		}
		if r := postFlood(t, s, `{ hubs { totalCount } }`, "application/graphql-response+json", nil); r.status != 200 || len(r.errors) > 0 {
			t.Errorf("a small response: %d %s", r.status, r.raw)
		}
	}
}

// TestErrorFloodMemory: four of the finding's probes at once (it took the
// process from 86 to 385 MB) allocate little and answer a few hundred bytes
// each; so do four of the worst documents for validation's comparison of
// fields in pairs within the limits (498 conflicting fields made 62,001
// errors, 18 MB of response and 290 MB allocated each before the limits;
// 250 fragments spread side by side 40 MB with no error).
func TestErrorFloodMemory(t *testing.T) {
	srv := apptest.New(t)
	numbered := func(k int, f string) string {
		var b strings.Builder
		for i := range k {
			b.WriteString(strings.ReplaceAll(f, "#", strconv.Itoa(i)))
		}
		return b.String()
	}
	for _, q := range []string{
		`{ hubs(first: 1) { totalCount ` + strings.Repeat("@a ", 24_000) + `} }`,
		`{ hubs { ` + strings.Repeat("a: totalCount a: __typename ", 249) + `} }`,
		`{ hubs { ` + numbered(4, strings.Repeat("a#: totalCount a#: __typename ", graph.MaxSameName/2)) + `} }`,
		`{ hubs { ` + numbered(graph.MaxFragments/2, "...F# ") + `} } ` + numbered(graph.MaxFragments/2, "fragment F# on HubConnection { f#: totalCount } "),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		sizes := make([]int, 4)
		for i := range 4 {
			wg.Go(func() {
				r := postFlood(t, srv, q, "application/graphql-response+json", nil)
				sizes[i] = len(r.raw)
			})
		}
		wg.Wait()
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%.40s…: %d MB allocated, bodies %v bytes", q, alloc>>20, sizes)
		if alloc > 64<<20 {
			t.Errorf("%.40s…: four at once allocated %d MB", q, alloc>>20)
		}
		for _, n := range sizes {
			if n > 64<<10 {
				t.Errorf("%.40s…: a body of %d bytes", q, n)
			}
		}
	}
}

// TestStreamingDocumentLimits: the document limits hold over WebSocket and
// SSE too, and a flood within them is bounded there as well.
func TestStreamingDocumentLimits(t *testing.T) {
	srv := apptest.New(t)
	probe := `subscription { orderChanged { sequence ` + strings.Repeat("@a ", 24_000) + `} }`
	within := `subscription { orderChanged { sequence ` + strings.Repeat("@a ", graph.MaxDirectives) + `} }`
	errorsOf := func(payload []byte) []map[string]any {
		var list []map[string]any // a WebSocket error message's payload
		if json.Unmarshal(payload, &list) == nil {
			return list
		}
		var p struct {
			Errors []map[string]any `json:"errors"`
		}
		if err := json.Unmarshal(payload, &p); err != nil {
			t.Fatalf("not JSON: %q", payload)
		}
		return p.Errors
	}
	code := func(e map[string]any) string {
		ext, _ := e["extensions"].(map[string]any)
		if s, _ := ext["reason"].(string); s != "" {
			return s
		}
		s, _ := ext["code"].(string)
		return s
	}

	ws := dialWS(t, srv, "production", nil, map[string]any{"Authorization": "Bearer " + srv.Keys["production"]})
	for i, q := range []string{probe, within} {
		id := strconv.Itoa(i)
		ws.subscribe(id, q, nil)
		var m wsMsg
		for m.ID != id || m.Type == "complete" { // the previous subscription's complete
			var err error
			if m, err = ws.read(10 * time.Second); err != nil {
				t.Fatalf("websocket: %v", err)
			}
		}
		errs := errorsOf(m.Payload)
		if len(m.Payload) > 64<<10 || len(errs) == 0 || len(errs) > graph.MaxErrors+1 {
			t.Fatalf("websocket %s: %s with %d errors, %d bytes: %.300s", id, m.Type, len(errs), len(m.Payload), m.Payload)
		}
		if q == probe && (len(errs) != 1 || code(errs[0]) != "DIRECTIVE_LIMIT_EXCEEDED") {
			t.Errorf("websocket: the probe answered %.300s", m.Payload)
		}
		if q == within && (m.Type != "error" || len(errs) != graph.MaxErrors+1 || code(errs[graph.MaxErrors]) != "TOO_MANY_ERRORS") {
			t.Errorf("websocket: %s with %d errors, the last %q", m.Type, len(errs), code(errs[len(errs)-1]))
		}
	}

	for _, q := range []string{probe, within} {
		c := dialSSE(t, srv, "production", nil, q, nil)
		ev, _ := c.read(false)
		errs := errorsOf([]byte(ev.Data))
		if len(ev.Data) > 64<<10 || len(errs) == 0 || len(errs) > graph.MaxErrors+1 {
			t.Fatalf("sse: %s with %d errors, %d bytes: %.300s", ev.Event, len(errs), len(ev.Data), ev.Data)
		}
		if q == probe && (len(errs) != 1 || code(errs[0]) != "DIRECTIVE_LIMIT_EXCEEDED") {
			t.Errorf("sse: the probe answered %.300s", ev.Data)
		}
		if q == within && (len(errs) != graph.MaxErrors+1 || code(errs[graph.MaxErrors]) != "TOO_MANY_ERRORS") {
			t.Errorf("sse: %d errors, the last %q", len(errs), code(errs[len(errs)-1]))
		}
	}
}
