package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/documents"
	"logistics/internal/eventlog"
	"logistics/standardwebhooks"
)

// servedDoc is the served OpenAPI document, ready to validate bodies
// against its schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12).
type servedDoc struct {
	raw      map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
}

const docURL = "file:///openapi.json"

func loadServedDoc(t *testing.T, s *apptest.Server, base string) *servedDoc {
	t.Helper()
	r := s.Do(t, http.MethodGet, base+"/v1/openapi.json", nil, apptest.Anonymous())
	if r.StatusCode != http.StatusOK {
		t.Fatalf("openapi.json: %d %s", r.StatusCode, r.Body)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, doc); err != nil {
		t.Fatal(err)
	}
	d := &servedDoc{compiler: c, schemas: map[string]*jsonschema.Schema{}}
	if err := json.Unmarshal(r.Body, &d.raw); err != nil {
		t.Fatal(err)
	}
	return d
}

// pointer is the JSON pointer of the path of keys, as a URL fragment.
func pointer(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		k = strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		k = strings.NewReplacer("{", "%7B", "}", "%7D").Replace(k)
		b.WriteString("/" + k)
	}
	return b.String()
}

// validate checks body against the schema at the path of keys.
func (d *servedDoc) validate(keys []string, body []byte) error {
	ptr := pointer(keys...)
	d.mu.Lock()
	sch, ok := d.schemas[ptr]
	if !ok {
		var err error
		if sch, err = d.compiler.Compile(docURL + "#" + ptr); err != nil {
			d.mu.Unlock()
			return fmt.Errorf("compile %s: %w", ptr, err)
		}
		d.schemas[ptr] = sch
	}
	d.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// refs lists the component schemas the schema at keys names directly or
// through its members (without following the references).
func (d *servedDoc) refs(keys ...string) []string {
	var v any = d.raw
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok {
				out = append(out, strings.TrimPrefix(r, "#/components/schemas/"))
			}
			for _, w := range v {
				walk(w)
			}
		case []any:
			for _, w := range v {
				walk(w)
			}
		}
	}
	walk(v)
	return out
}

// contractClient makes requests and validates every JSON answer against
// the served document's schema for its operation and status.
type contractClient struct {
	t       *testing.T
	s       *apptest.Server
	base    string
	doc     *servedDoc
	covered map[string]bool // component schemas responses were validated against
}

var pathArg = regexp.MustCompile(`\{\w+\}`)

// do sends method to the path template (its {…} filled with args in order)
// and validates the answer; want is the expected status.
func (c *contractClient) do(method, tmpl string, args []string, body any, header http.Header, want int) []byte {
	c.t.Helper()
	i := 0
	path := pathArg.ReplaceAllStringFunc(tmpl, func(string) string { i++; return args[i-1] })
	if q := strings.IndexByte(tmpl, '?'); q >= 0 {
		tmpl = tmpl[:q]
	}
	r := c.s.Do(c.t, method, c.base+path, body, header)
	if r.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, r.StatusCode, r.Body, want)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return r.Body
	}
	keys := []string{"paths", tmpl, strings.ToLower(method), "responses", fmt.Sprint(r.StatusCode), "content", "application/json", "schema"}
	if err := c.doc.validate(keys, r.Body); err != nil {
		c.t.Errorf("%s %s: the answer does not match the document's schema: %v\n%s", method, path, err, r.Body)
	}
	for _, n := range c.doc.refs(keys...) {
		c.covered[n] = true
	}
	return r.Body
}

func idOf(t *testing.T, body []byte) string {
	t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s", body)
	}
	return v.ID
}

// delivery is one request a webhook receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a local webhook receiver; status is what it answers.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []delivery
	seen chan struct{}
}

func newReceiver(t *testing.T, status int) *receiver {
	rc := &receiver{seen: make(chan struct{}, 1)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.Header.Clone(), b})
		rc.mu.Unlock()
		select {
		case rc.seen <- struct{}{}:
		default:
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// byType waits until the receiver holds a delivery of every type in want
// (or the deadline) and returns the deliveries by type.
func (rc *receiver) byType(t *testing.T, want []string, deadline time.Duration) map[string][]delivery {
	t.Helper()
	end := time.After(deadline)
	for {
		out := map[string][]delivery{}
		rc.mu.Lock()
		for _, d := range rc.got {
			var ev struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(d.body, &ev)
			out[ev.Type] = append(out[ev.Type], d)
		}
		rc.mu.Unlock()
		missing := 0
		for _, w := range want {
			if len(out[w]) == 0 {
				missing++
			}
		}
		if missing == 0 {
			return out
		}
		select {
		case <-rc.seen:
		case <-time.After(100 * time.Millisecond):
		case <-end:
			return out
		}
	}
}

// TestContract walks every resource through REST in the sandbox with a
// webhook endpoint listening to every event: each JSON answer must match
// the served OpenAPI document's schema of its operation (the required
// members of the representations included), and each delivered webhook
// body the schema of its type in the document's webhooks section —
// webhook.test and webhook_endpoint.disabled too, and demo_data.loaded
// resent. The receiver checks every signature as well.
func TestContract(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.WebhookAllowPrivate = true
		c.NoDemoData, c.DemoScale = false, 0.001
	}})
	c := &contractClient{t: t, s: s, base: s.SandboxURL, doc: loadServedDoc(t, s, s.SandboxURL), covered: map[string]bool{}}
	none := []string(nil)
	one := func(id string) []string { return []string{id} }

	// The endpoint that receives everything, and one that answers 410
	// (Gone: the service disables it and records webhook_endpoint.disabled).
	all, gone := newReceiver(t, http.StatusNoContent), newReceiver(t, http.StatusGone)
	var ep struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(c.do("POST", "/v1/webhook-endpoints", none, map[string]any{"url": all.URL + "/hooks", "event_types": []string{"*"}}, nil, 201), &ep); err != nil {
		t.Fatal(err)
	}
	goneID := idOf(t, c.do("POST", "/v1/webhook-endpoints", none, map[string]any{"url": gone.URL + "/hooks", "event_types": []string{"hub.created"}}, nil, 201))

	c.do("GET", "/v1/status", none, nil, nil, 200)
	hub := idOf(t, c.do("POST", "/v1/hubs", none, map[string]any{"code": "ZCT1", "name": "Contract", "kind": "warehouse", "address": map[string]any{"country": "NL"}}, nil, 201))
	c.do("PATCH", "/v1/hubs/{id}", one(hub), map[string]any{"name": "Contract hub", "latitude": 52.1}, nil, 200)
	c.do("GET", "/v1/hubs/{id}", one(hub), nil, nil, 200)
	c.do("GET", "/v1/hubs?code=ZCT1", none, nil, nil, 200)
	part := idOf(t, c.do("POST", "/v1/parts", none, map[string]any{"sku": "ZCT-BOLT", "part_name": "Bolt", "unit_weight_kg": 0.25}, nil, 201))
	c.do("PATCH", "/v1/parts/{id}", one(part), map[string]any{"description": "A bolt"}, nil, 200)
	c.do("GET", "/v1/parts/{id}", one(part), nil, nil, 200)
	c.do("GET", "/v1/parts?sku=ZCT-BOLT", none, nil, nil, 200)
	item := idOf(t, c.do("POST", "/v1/items", none, map[string]any{"part_id": part, "hub": "ZCT1", "quantity": 20, "expires_at": "2030-01-01T00:00:00Z"}, nil, 201))
	c.do("PATCH", "/v1/items/{id}", one(item), map[string]any{"lot": "L1"}, nil, 200)
	c.do("GET", "/v1/items/{id}", one(item), nil, nil, 200)
	c.do("GET", "/v1/items?hub=ZCT1", none, nil, nil, 200)
	c.do("POST", "/v1/items/import", none, "sku,hub,quantity\nZCT-BOLT,ZCT1,3\n", http.Header{"Content-Type": {"text/csv"}}, 201)

	order := idOf(t, c.do("POST", "/v1/orders", none, map[string]any{"hub": "ZCT1", "customer_ref": "C-1", "due_at": "2030-01-01T00:00:00Z",
		"ship_to": map[string]any{"name": "A", "line1": "B", "city": "C", "postal_code": "1000", "country": "NL"},
		"lines":   []map[string]any{{"part_id": part, "quantity": 2}}}, nil, 201))
	line := idOf(t, c.do("POST", "/v1/orders/{id}/lines", one(order), map[string]any{"sku": "ZCT-BOLT", "quantity": 1}, nil, 201))
	c.do("PATCH", "/v1/order-lines/{id}", one(line), map[string]any{"quantity": 3}, nil, 200)
	c.do("GET", "/v1/order-lines/{id}", one(line), nil, nil, 200)
	c.do("GET", "/v1/orders/{id}/lines", one(order), nil, nil, 200)
	c.do("PATCH", "/v1/orders/{id}", one(order), map[string]any{"priority": "high"}, nil, 200)
	for _, tr := range []map[string]any{{"transition": "submit"}, {"transition": "allocate"}, {"transition": "start_picking"},
		{"transition": "ship", "tracking_number": "1Z", "carrier": "UPS"}} {
		c.do("POST", "/v1/orders/{id}/transitions", one(order), tr, nil, 200)
	}
	c.do("GET", "/v1/orders/{id}", one(order), nil, nil, 200)
	c.do("GET", "/v1/orders?hub=ZCT1", none, nil, nil, 200)
	c.do("GET", "/v1/orders/{id}/events", one(order), nil, nil, 200)
	entry := idOf(t, c.do("POST", "/v1/tracking-entries", none, map[string]any{"order_id": order, "tracking_number": "1Z", "carrier": "UPS", "status": "in_transit", "hub": "ZCT1"}, nil, 201))
	c.do("PATCH", "/v1/tracking-entries/{id}", one(entry), map[string]any{"location": "Utrecht"}, nil, 200)
	c.do("GET", "/v1/tracking-entries/{id}", one(entry), nil, nil, 200)
	c.do("GET", "/v1/tracking-entries?hub=ZCT1", none, nil, nil, 200)
	c.do("DELETE", "/v1/tracking-entries/{id}", one(entry), nil, nil, 204)
	wf := idOf(t, c.do("POST", "/v1/workflows", none, map[string]any{"key": "contract", "states": []string{"a", "b"}, "initial_state": "a",
		"transitions": []map[string]any{{"name": "go", "from": []string{"a"}, "to": "b"}}}, nil, 201))
	c.do("GET", "/v1/workflows/{id}", one(wf), nil, nil, 200)
	c.do("GET", "/v1/workflows", none, nil, nil, 200)

	// Deletions, of things made for them.
	draft := idOf(t, c.do("POST", "/v1/orders", none, map[string]any{"hub": "ZCT1", "lines": []map[string]any{{"part_id": part, "quantity": 1}, {"part_id": part, "quantity": 1}}}, nil, 201))
	var lines struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(c.do("GET", "/v1/orders/{id}/lines", one(draft), nil, nil, 200), &lines)
	c.do("DELETE", "/v1/order-lines/{id}", one(lines.Data[0].ID), nil, nil, 204)
	c.do("DELETE", "/v1/orders/{id}", one(draft), nil, nil, 204)
	spare := idOf(t, c.do("POST", "/v1/hubs", none, map[string]any{"code": "ZCT2", "name": "Spare", "address": map[string]any{"country": "BE"}}, nil, 201))
	sparePart := idOf(t, c.do("POST", "/v1/parts", none, map[string]any{"sku": "ZCT-NUT", "part_name": "Nut"}, nil, 201))
	spareItem := idOf(t, c.do("POST", "/v1/items", none, map[string]any{"part_id": sparePart, "hub_id": spare, "quantity": 1}, nil, 201))
	c.do("DELETE", "/v1/items/{id}", one(spareItem), nil, nil, 204)
	c.do("DELETE", "/v1/parts/{id}", one(sparePart), nil, nil, 204)
	c.do("DELETE", "/v1/hubs/{id}", one(spare), nil, nil, 204)

	// Trusted documents: registered (new, then known), listed, read, retired.
	const spaDoc = "query Hubs { hubs { totalCount } }"
	manifest := map[string]string{documents.Hash(spaDoc): spaDoc}
	c.do("POST", "/v1/trusted-documents?client_name=spa&client_version=1.0.0", none, manifest, nil, 201)
	c.do("POST", "/v1/trusted-documents?client_name=spa", none, manifest, nil, 200)
	c.do("GET", "/v1/trusted-documents", none, nil, nil, 200)
	c.do("GET", "/v1/trusted-documents/{hash}", one(documents.Hash(spaDoc)), nil, nil, 200)
	c.do("DELETE", "/v1/trusted-documents/{hash}", one(documents.Hash(spaDoc)), nil, nil, 200)

	// Webhook endpoints, a test event, and the demo data's event resent.
	c.do("GET", "/v1/webhook-endpoints", none, nil, nil, 200)
	c.do("GET", "/v1/webhook-endpoints/{id}", one(ep.ID), nil, nil, 200)
	c.do("POST", "/v1/webhook-endpoints/{id}/test", one(ep.ID), nil, nil, 202)
	var demo struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(c.do("GET", "/v1/events?type=demo_data.loaded", none, nil, nil, 200), &demo)
	if len(demo.Data) != 1 {
		t.Fatalf("demo_data.loaded events: %+v", demo)
	}
	c.do("GET", "/v1/events/{id}", one(demo.Data[0].ID), nil, nil, 200)
	c.do("GET", "/v1/events?after=0&limit=5", none, nil, nil, 200)
	c.do("POST", "/v1/webhook-endpoints/{id}/resend", one(ep.ID), map[string]any{"event_id": demo.Data[0].ID}, nil, 202)

	// A reset of the sandbox: sandbox.reset, then demo_data.loaded again.
	c.do("POST", "/v1/sandbox/reset", none, map[string]any{"confirm": "sandbox", "scale": 0.001}, nil, 200)
	// The sandbox's clock (moved last: the events above are in real time).
	c.do("GET", "/v1/sandbox/clock", none, nil, nil, 200)
	c.do("POST", "/v1/sandbox/clock/advance", none, map[string]any{"by": "1h"}, nil, 200)

	var types []string
	for _, et := range eventlog.Catalog {
		types = append(types, et.Name)
	}
	types = append(types, "webhook.test")
	got := all.byType(t, types, 30*time.Second)
	c.do("GET", "/v1/webhook-endpoints/{id}/deliveries", one(ep.ID), nil, nil, 200)
	c.do("GET", "/v1/webhook-endpoints/{id}/deliveries/stats", one(ep.ID), nil, nil, 200)
	c.do("GET", "/v1/webhook-endpoints/{id}", one(goneID), nil, nil, 200)

	for _, typ := range types {
		if len(got[typ]) == 0 {
			t.Errorf("no %s delivered", typ)
		}
		for _, d := range got[typ] {
			if err := standardwebhooks.Verify(ep.Secret, d.header, d.body, time.Now(), 5*time.Minute); err != nil {
				t.Errorf("%s: signature: %v", typ, err)
			}
			keys := []string{"webhooks", typ, "post", "requestBody", "content", "application/json", "schema"}
			if err := c.doc.validate(keys, d.body); err != nil {
				t.Errorf("%s: the body does not match the document's webhooks schema: %v\n%s", typ, err, d.body)
			}
		}
	}
	for typ := range got {
		if !slices.Contains(types, typ) {
			t.Errorf("delivered %s, a type the document does not list", typ)
		}
	}

	// A test event of every type, to an endpoint that receives nothing
	// else: the schema of its type, marked test, and shaped as a real
	// delivery of the type is (checkTestEvents).
	probe := newReceiver(t, http.StatusNoContent)
	var pe struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(c.do("POST", "/v1/webhook-endpoints", none, map[string]any{"url": probe.URL + "/hooks", "event_types": []string{"webhook.test"}}, nil, 201), &pe); err != nil {
		t.Fatal(err)
	}
	for _, typ := range types {
		c.do("POST", "/v1/webhook-endpoints/{id}/test", one(pe.ID), map[string]any{"type": typ}, nil, 202)
	}
	checkTestEvents(t, c.doc, pe.Secret, types, probe.byType(t, types, 30*time.Second), got)

	// Every representation was checked against its schema, and marks what
	// it always has as required (else the checks above prove little).
	schemas := c.doc.raw["components"].(map[string]any)["schemas"].(map[string]any)
	for name, v := range schemas {
		if strings.HasSuffix(name, "Input") || name == "Problem" {
			continue
		}
		if req, _ := v.(map[string]any)["required"].([]any); len(req) == 0 {
			t.Errorf("schema %s marks no member required", name)
		}
		if !c.covered[name] && name != "WebhookTest" {
			t.Errorf("no answer was checked against schema %s", name)
		}
	}
}

// checkTestEvents checks the test events of every type in types, as the
// receiver got them (tests), against the document's webhooks schema of
// their type and against a real delivery of the type (real): "test": true
// and sequence 0 mark them, and without that member each has the shape of
// one real delivery at least — the same members in the same order at the
// top and in data, the same JSON types below (a real item.updated from an
// edit and one from a stock effect differ).
func checkTestEvents(t *testing.T, doc *servedDoc, secret string, types []string, tests, real map[string][]delivery) {
	t.Helper()
	for _, typ := range types {
		if len(tests[typ]) != 1 {
			t.Errorf("%s: %d test events delivered, want 1", typ, len(tests[typ]))
			continue
		}
		d := tests[typ][0]
		if err := standardwebhooks.Verify(secret, d.header, d.body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("test %s: signature: %v", typ, err)
		}
		keys := []string{"webhooks", typ, "post", "requestBody", "content", "application/json", "schema"}
		if err := doc.validate(keys, d.body); err != nil {
			t.Errorf("test %s: the body does not match the document's webhooks schema: %v\n%s", typ, err, d.body)
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal(d.body, &env); err != nil {
			t.Fatal(err)
		}
		if string(env["test"]) != "true" || string(env["sequence"]) != "0" {
			t.Errorf("test %s: test %s, sequence %s; want true and 0", typ, env["test"], env["sequence"])
		}
		if typ == "webhook.test" {
			continue // no real one to compare with
		}
		unmarked := bytes.Replace(d.body, []byte(`,"test":true`), nil, 1)
		var errs []string
		for _, r := range real[typ] {
			err := sameMembers(unmarked, r.body)
			if err == nil {
				errs = nil
				break
			}
			errs = append(errs, err.Error())
		}
		if len(errs) > 0 {
			t.Errorf("test %s is not shaped as a real one: %s\n--- test\n%s\n--- real\n%s", typ, strings.Join(errs, "; "), d.body, real[typ][0].body)
		}
	}
}

// sameMembers compares two bodies of one event type: the same members in
// the same order at the top and in data, and below data the same members
// of every object, each of the same JSON type unless one is null (what is
// nullable the schema checks); previous_attributes, which holds what one
// change changed, only names members of object.
func sameMembers(a, b []byte) error {
	ka, kb := memberOrder(a), memberOrder(b)
	for _, p := range []string{"", "data"} {
		if !slices.Equal(ka[p], kb[p]) {
			return fmt.Errorf("members of %q: %v and %v", p, ka[p], kb[p])
		}
	}
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return err
	}
	var cmp func(path string, x, y any) error
	cmp = func(path string, x, y any) error {
		if x == nil || y == nil {
			return nil
		}
		if reflect.TypeOf(x) != reflect.TypeOf(y) {
			return fmt.Errorf("%s: %T and %T", path, x, y)
		}
		switch x := x.(type) {
		case map[string]any:
			y := y.(map[string]any)
			if path == ".data.previous_attributes" {
				obj, _ := va.(map[string]any)["data"].(map[string]any)["object"].(map[string]any)
				for k := range x {
					if _, ok := obj[k]; !ok {
						return fmt.Errorf("%s.%s: not a member of object", path, k)
					}
				}
				return nil
			}
			if len(x) != len(y) {
				return fmt.Errorf("%s: %d and %d members", path, len(x), len(y))
			}
			for k, v := range x {
				w, ok := y[k]
				if !ok {
					return fmt.Errorf("%s.%s: in one, not the other", path, k)
				}
				if err := cmp(path+"."+k, v, w); err != nil {
					return err
				}
			}
		case []any:
			if y := y.([]any); len(x) > 0 && len(y) > 0 {
				return cmp(path+"[0]", x[0], y[0])
			}
		}
		return nil
	}
	return cmp("", va, vb)
}

// The body example of docs/webhooks.md is a real delivery's shape: the same
// members in the same order at the top and in data, each of the same JSON
// type, and whatever the example shows of data.object (abbreviated) as the
// service writes it.
func TestWebhookDocExample(t *testing.T) {
	doc, err := fs.ReadFile(apptest.ModuleFS(), "docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)The body \\(an `order.transitioned`[^\n]*\n(?:[^\n]*\n)*?```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/webhooks.md: no ```json body example after \"The body (an `order.transitioned`\"")
	}
	example := m[1]

	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.WebhookAllowPrivate = true }})
	rc := newReceiver(t, http.StatusNoContent)
	if r := s.Do(t, http.MethodPost, s.URL+"/v1/webhook-endpoints", map[string]any{"url": rc.URL, "event_types": []string{"order.transitioned"}}, nil); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	post := func(path string, body any) string {
		r := s.Do(t, http.MethodPost, s.URL+path, body, nil)
		if r.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, r.StatusCode, r.Body)
		}
		return idOf(t, r.Body)
	}
	post("/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	part := post("/v1/parts", map[string]any{"sku": "BOLT-M8", "part_name": "Bolt"})
	post("/v1/items", map[string]any{"part_id": part, "hub": "AMS1", "quantity": 10})
	order := post("/v1/orders", map[string]any{"hub": "AMS1", "lines": []map[string]any{{"part_id": part, "quantity": 2}}})
	post("/v1/orders/"+order+"/transitions", map[string]any{"transition": "submit"})
	real := rc.byType(t, []string{"order.transitioned"}, 20*time.Second)["order.transitioned"]
	if len(real) == 0 {
		t.Fatal("no order.transitioned delivered")
	}
	if err := sameShape("", example, real[0].body); err != nil {
		t.Errorf("docs/webhooks.md's body example is not what the service sends: %v\n--- example\n%s\n--- delivered\n%s", err, example, real[0].body)
	}
}

// sameShape compares a documented example with a real body: objects at the
// top and in data have the same members in the same order; below data,
// the example's members (it may leave some out) exist with the same type.
func sameShape(path string, example, real []byte) error {
	var ex, re any
	if err := json.Unmarshal(example, &ex); err != nil {
		return fmt.Errorf("the example is not JSON: %v", err)
	}
	if err := json.Unmarshal(real, &re); err != nil {
		return err
	}
	exKeys, reKeys := memberOrder(example), memberOrder(real)
	for _, p := range []string{"", "data"} {
		if !slices.Equal(exKeys[p], reKeys[p]) {
			return fmt.Errorf("members of %q: example %v, delivered %v", p, exKeys[p], reKeys[p])
		}
	}
	return compareTypes(path, ex, re)
}

func compareTypes(path string, ex, re any) error {
	if reflect.TypeOf(ex) != reflect.TypeOf(re) {
		return fmt.Errorf("%s: example %T, delivered %T", path, ex, re)
	}
	switch ex := ex.(type) {
	case map[string]any:
		for k, v := range ex {
			w, ok := re.(map[string]any)[k]
			if !ok {
				return fmt.Errorf("%s.%s: in the example, not delivered", path, k)
			}
			if err := compareTypes(path+"."+k, v, w); err != nil {
				return err
			}
		}
	case []any:
		if r := re.([]any); len(ex) > 0 && len(r) > 0 {
			return compareTypes(path+"[0]", ex[0], r[0])
		}
	}
	return nil
}

// memberOrder gives the member names of the top object and of its data
// object, in their order in the text.
func memberOrder(b []byte) map[string][]string {
	out := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(b))
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch d {
		case '{':
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				name := k.(string)
				if depth == 0 || (depth == 1 && path == "data") {
					out[path] = append(out[path], name)
				}
				sub := name
				if depth > 0 {
					sub = path + "." + name
				}
				if err := walk(sub, depth+1); err != nil {
					return err
				}
			}
		case '[':
			for dec.More() {
				if err := walk(path+"[]", depth+1); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	_ = walk("", 0)
	return out
}
