package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
	"logistics/internal/service"
)

type flowFixture struct {
	s     *apptest.Server
	order *ent.Order
	part  *ent.Part
	hub   *ent.Hub
}

func newFlowFixture(t *testing.T) *flowFixture {
	t.Helper()
	s := apptest.New(t)
	ctx := s.Ctx(environment.Sandbox)
	svc := s.App.Service
	h, err := svc.CreateHub(ctx, ent.CreateHubInput{Code: "AMS1", Name: "Amsterdam", Country: "NL"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.CreatePart(ctx, ent.CreatePartInput{Sku: "BOLT-M8", PartName: "Hex bolt M8"})
	if err != nil {
		t.Fatal(err)
	}
	q := decimal.FromInt(10)
	if _, err := svc.CreateItem(ctx, ent.CreateItemInput{PartID: p.ID, HubID: h.ID, Quantity: &q}); err != nil {
		t.Fatal(err)
	}
	o, err := svc.CreateOrder(ctx, ent.CreateOrderInput{HubID: h.ID}, []service.NewLine{{PartID: p.ID, Quantity: decimal.MustParse("2.5")}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return &flowFixture{s: s, order: o, part: p, hub: h}
}

func (f *flowFixture) url(path string) string { return f.s.SandboxURL + path }

func TestRESTTransitionsAndEvents(t *testing.T) {
	f := newFlowFixture(t)
	tr := f.url("/v1/orders/" + string(f.order.ID) + "/transitions")
	steps := []struct {
		body       any
		header     http.Header
		wantStatus int
		wantIn     string
	}{
		{map[string]any{"transition": "allocate"}, nil, 409, `"allowed_transitions":["submit","cancel"]`},
		{map[string]any{"transition": ""}, nil, 422, `"field":"transition"`},
		{`{"transition": 5}`, http.Header{"Content-Type": {"application/json"}}, 400, `"code":"invalid_parameter"`},
		{`not json`, http.Header{"Content-Type": {"application/json"}}, 400, `"code":"bad_request"`},
		{map[string]any{"transition": "submit"}, http.Header{"If-Match": {`"99"`}}, 412, `"code":"precondition_failed"`},
		{map[string]any{"transition": "submit"}, http.Header{"If-Match": {`"1"`}}, 200, `"status":"open"`},
		{map[string]any{"transition": "allocate"}, nil, 200, `"allocated_quantity":2.5`},
		{map[string]any{"transition": "start_picking"}, nil, 200, `"allowed_transitions":["ship","cancel"]`},
		{map[string]any{"transition": "ship"}, nil, 422, `"field":"tracking_number"`},
		{map[string]any{"transition": "ship", "tracking_number": "1Z1", "carrier": "UPS"}, nil, 200, `"shipped_quantity":2.5`},
		{map[string]any{"transition": "cancel"}, nil, 409, `"code":"illegal_transition"`},
	}
	for i, st := range steps {
		r := f.s.Do(t, http.MethodPost, tr, st.body, st.header)
		if r.StatusCode != st.wantStatus || !strings.Contains(string(r.Body), st.wantIn) {
			t.Fatalf("step %d %v: %d %s\nwant %d containing %s", i, st.body, r.StatusCode, r.Body, st.wantStatus, st.wantIn)
		}
		if r.StatusCode >= 400 && r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("step %d: content type %s", i, r.Header.Get("Content-Type"))
		}
		if r.StatusCode == 200 && r.Header.Get("ETag") == "" {
			t.Errorf("step %d: no ETag", i)
		}
	}
	if r := f.s.Do(t, http.MethodPost, f.url("/v1/orders/ord_01JAAAAAAAAAAAAAAAAAAAAAAA/transitions"), map[string]any{"transition": "submit"}, nil); r.StatusCode != 404 {
		t.Errorf("unknown order: %d %s", r.StatusCode, r.Body)
	}

	ev := f.url("/v1/orders/" + string(f.order.ID) + "/events")
	var page struct {
		Data []struct {
			Transition string    `json:"transition"`
			FromState  string    `json:"from_state"`
			ToState    string    `json:"to_state"`
			Actor      string    `json:"actor"`
			OccurredAt time.Time `json:"occurred_at"`
		} `json:"data"`
		HasMore    bool    `json:"has_more"`
		NextCursor *string `json:"next_cursor"`
	}
	r := f.s.Do(t, http.MethodGet, ev, nil, nil)
	r.JSON(t, &page)
	if len(page.Data) != 4 || page.Data[0].Transition != "submit" || page.Data[3].ToState != "shipped" || page.Data[0].Actor == "" {
		t.Fatalf("events: %s", r.Body)
	}
	mid := page.Data[1].OccurredAt
	filters := []struct {
		query string
		want  []string
	}{
		{"transition=allocate", []string{"allocate"}},
		{"transition[]=allocate&transition[]=ship", []string{"allocate", "ship"}},
		{"transition!=submit", []string{"allocate", "start_picking", "ship"}},
		{"to_state=picking", []string{"start_picking"}},
		{"occurred_at>=" + url.QueryEscape(mid.Format(time.RFC3339Nano)), []string{"allocate", "start_picking", "ship"}},
		{"occurred_at<" + url.QueryEscape(mid.Format(time.RFC3339Nano)), []string{"submit"}},
		{"colour=red&limit=2", []string{"submit", "allocate"}},
	}
	for _, fl := range filters {
		r := f.s.Do(t, http.MethodGet, ev+"?"+fl.query, nil, nil)
		page.Data = nil
		r.JSON(t, &page)
		var got []string
		for _, e := range page.Data {
			got = append(got, e.Transition)
		}
		if fmt.Sprint(got) != fmt.Sprint(fl.want) {
			t.Errorf("%s: %v, want %v", fl.query, got, fl.want)
		}
	}
	r = f.s.Do(t, http.MethodGet, ev+"?limit=2", nil, nil)
	r.JSON(t, &page)
	if !page.HasMore || page.NextCursor == nil || r.Header.Get("X-Ignored-Filters") != "" {
		t.Fatalf("page 1: %s", r.Body)
	}
	r = f.s.Do(t, http.MethodGet, ev+"?limit=2&cursor="+*page.NextCursor, nil, nil)
	r.JSON(t, &page)
	if page.HasMore || len(page.Data) != 2 || page.Data[1].Transition != "ship" {
		t.Fatalf("page 2: %s", r.Body)
	}
	for _, bad := range []string{"occurred_at>=yesterday", "limit=0", "cursor=zzz"} {
		if r := f.s.Do(t, http.MethodGet, ev+"?"+bad, nil, nil); r.StatusCode != 400 {
			t.Errorf("%s: %d %s", bad, r.StatusCode, r.Body)
		}
	}
	if r := f.s.Do(t, http.MethodGet, ev+"?colour=red", nil, nil); r.Header.Get("X-Ignored-Filters") != "colour" {
		t.Errorf("ignored filters header %q", r.Header.Get("X-Ignored-Filters"))
	}
}

func TestRESTWorkflows(t *testing.T) {
	f := newFlowFixture(t)
	def := map[string]any{
		"key": "express", "name": "Express", "states": []string{"new", "gone"}, "initial_state": "new",
		"transitions": []map[string]any{{"name": "ship", "from": []string{"new"}, "to": "gone", "effect": "ship"}},
	}
	r := f.s.Do(t, http.MethodPost, f.url("/v1/workflows"), def, nil)
	if r.StatusCode != 201 || !strings.Contains(string(r.Body), `"version":1`) {
		t.Fatalf("create: %d %s", r.StatusCode, r.Body)
	}
	r = f.s.Do(t, http.MethodPost, f.url("/v1/workflows"), def, nil)
	if r.StatusCode != 201 || !strings.Contains(string(r.Body), `"version":2`) || !strings.Contains(string(r.Body), `"latest":true`) {
		t.Fatalf("new version: %d %s", r.StatusCode, r.Body)
	}
	bad := map[string]any{
		"key": "broken", "states": []string{"a", "b", "c"}, "initial_state": "x",
		"transitions": []map[string]any{{"name": "go", "from": []string{"a"}, "to": "z", "effect": "explode"}},
	}
	r = f.s.Do(t, http.MethodPost, f.url("/v1/workflows"), bad, nil)
	if r.StatusCode != 422 {
		t.Fatalf("invalid: %d %s", r.StatusCode, r.Body)
	}
	for _, want := range []string{`"field":"initial_state"`, `"field":"transitions[0].to"`, `"field":"transitions[0].effect"`} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("invalid workflow: no %s in %s", want, r.Body)
		}
	}
	r = f.s.Do(t, http.MethodPost, f.url("/v1/workflows"), map[string]any{"key": "fulfilment", "states": []string{"a"}, "initial_state": "a", "transitions": []any{}}, nil)
	if r.StatusCode != 409 || !strings.Contains(string(r.Body), "built_in_workflow") {
		t.Errorf("fulfilment: %d %s", r.StatusCode, r.Body)
	}
}

func TestGraphQLTransitionOrder(t *testing.T) {
	f := newFlowFixture(t)
	var out struct {
		TransitionOrder struct {
			Status             string   `json:"status"`
			AllowedTransitions []string `json:"allowedTransitions"`
			Events             []struct {
				Transition string `json:"transition"`
			} `json:"events"`
		} `json:"transitionOrder"`
	}
	q := `mutation($id: ID!, $t: String!) { transitionOrder(id: $id, transition: $t) { status allowedTransitions events { transition } } }`
	f.s.MustGraphQL(t, environment.Sandbox, q, map[string]any{"id": f.order.ID, "t": "submit"}, &out)
	if out.TransitionOrder.Status != "open" || fmt.Sprint(out.TransitionOrder.AllowedTransitions) != "[allocate cancel]" || len(out.TransitionOrder.Events) != 1 {
		t.Fatalf("%+v", out)
	}
	r := f.s.GraphQL(t, environment.Sandbox, q, map[string]any{"id": f.order.ID, "t": "close"})
	if len(r.Errors) != 1 || r.Errors[0].Code() != "CONFLICT" {
		t.Fatalf("illegal: %+v", r.Errors)
	}
	var wf struct {
		CreateWorkflow struct {
			Key     string `json:"key"`
			Version int    `json:"version"`
		} `json:"createWorkflow"`
	}
	f.s.MustGraphQL(t, environment.Sandbox, `mutation { createWorkflow(input: {key: "quick", states: ["a", "b"], initialState: "a", transitions: [{name: "go", from: ["a"], to: "b"}]}) { key version } }`, nil, &wf)
	if wf.CreateWorkflow.Version != 1 {
		t.Errorf("%+v", wf)
	}
	r = f.s.GraphQL(t, environment.Sandbox, `mutation { createWorkflow(input: {key: "quick", states: ["a", "b"], initialState: "c", transitions: []}) { key } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Code() != "BAD_USER_INPUT" {
		t.Errorf("invalid workflow: %+v", r.Errors)
	}
}

func TestImportItems(t *testing.T) {
	f := newFlowFixture(t)
	imp := f.url("/v1/items/import")
	csvHeader := http.Header{"Content-Type": {"text/csv"}}
	good := "sku,hub,quantity,lot,serial,status,expires_at\n" +
		"BOLT-M8,AMS1,12.5,L1,,available,2027-01-01\n" +
		"BOLT-M8,ams1,3,,SN-1,quarantined,2027-01-01T10:00:00Z\n" +
		"\"BOLT-M8\",AMS1,0.001,,,,\n"
	r := f.s.Do(t, http.MethodPost, imp, good, csvHeader)
	if r.StatusCode != 201 || !strings.Contains(string(r.Body), `"imported":3`) {
		t.Fatalf("good file: %d %s", r.StatusCode, r.Body)
	}
	ctx := f.s.Ctx(environment.Sandbox)
	c := ent.FromContext(ctx)
	if n := c.Item.Query().CountX(ctx); n != 4 {
		t.Errorf("%d items after import, want 4", n)
	}
	if n := c.Item.Query().Where(item.Lot("L1"), item.QuantityEQ(decimal.MustParse("12.5"))).CountX(ctx); n != 1 {
		t.Errorf("imported row not found exactly")
	}
	bad := "sku,hub,quantity,status,expires_at\n" +
		"BOLT-M8,AMS1,1,,\n" + // row 2 fine
		"NOPE,AMS1,1,,\n" + // row 3 unknown sku
		"BOLT-M8,XXX9,1,,\n" + // row 4 unknown hub
		"BOLT-M8,AMS1,-1,,\n" + // row 5 negative
		"BOLT-M8,AMS1,1.0001,lost,soon\n" + // row 6 three problems
		",,,,\n" // row 7 missing
	r = f.s.Do(t, http.MethodPost, imp, bad, csvHeader)
	if r.StatusCode != 422 {
		t.Fatalf("bad file: %d %s", r.StatusCode, r.Body)
	}
	var prob struct {
		Code        string `json:"code"`
		InvalidRows int    `json:"invalid_rows"`
		RowErrors   []struct {
			Row    int    `json:"row"`
			Column string `json:"column"`
		} `json:"row_errors"`
	}
	r.JSON(t, &prob)
	got := map[string]bool{}
	for _, e := range prob.RowErrors {
		got[fmt.Sprintf("%d:%s", e.Row, e.Column)] = true
	}
	for _, want := range []string{"3:sku", "4:hub", "5:quantity", "6:quantity", "6:status", "6:expires_at", "7:sku", "7:hub", "7:quantity"} {
		if !got[want] {
			t.Errorf("no error for %s in %s", want, r.Body)
		}
	}
	if prob.Code != "invalid_import" || prob.InvalidRows != 5 || got["2:"] {
		t.Errorf("problem: %s", r.Body)
	}
	if n := c.Item.Query().CountX(ctx); n != 4 {
		t.Errorf("%d items after a refused import, want 4 (all or nothing)", n)
	}
	for _, tc := range []struct {
		body, ct string
		status   int
	}{
		{"sku,hub\nBOLT-M8,AMS1\n", "text/csv", 422},   // missing quantity column
		{"sku,hub,quantity,colour\n", "text/csv", 422}, // unknown column
		{"", "text/csv", 422},                          // empty
		{"sku,hub,quantity\n", "text/csv", 422},        // no rows
		{"sku,hub,quantity\nBOLT-M8,AMS1,1\n", "application/json", 415},
	} {
		r := f.s.Do(t, http.MethodPost, imp, tc.body, http.Header{"Content-Type": {tc.ct}})
		if r.StatusCode != tc.status {
			t.Errorf("%q as %s: %d %s", tc.body, tc.ct, r.StatusCode, r.Body)
		}
	}
	// More rows than one batch, with a bad row at the end: nothing is kept.
	var b strings.Builder
	b.WriteString("sku,hub,quantity\n")
	for range 2500 {
		b.WriteString("BOLT-M8,AMS1,1\n")
	}
	b.WriteString("BOLT-M8,AMS1,x\n")
	r = f.s.Do(t, http.MethodPost, imp, b.String(), csvHeader)
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), `"row":2502`) {
		t.Fatalf("late bad row: %d %s", r.StatusCode, r.Body)
	}
	if n := c.Item.Query().CountX(ctx); n != 4 {
		t.Errorf("%d items after a refused import, want 4", n)
	}
}

// A transition's body may carry the revision it is based on, as If-Match
// does (and as GraphQL's revision argument): stale is a 412 (GraphQL
// CONFLICT, precondition_failed) that changes nothing.
func TestTransitionRevisionInBody(t *testing.T) {
	f := newFlowFixture(t)
	tr := f.url("/v1/orders/" + string(f.order.ID) + "/transitions")
	steps := []struct {
		body       any
		header     http.Header
		wantStatus int
		wantIn     string
	}{
		{map[string]any{"transition": "submit", "revision": 99}, nil, 412, `"code":"precondition_failed"`},
		{map[string]any{"transition": "submit", "revision": 0}, nil, 412, `"code":"precondition_failed"`},
		{map[string]any{"transition": "submit", "revision": 1}, http.Header{"If-Match": {`"2"`}}, 412, `"code":"precondition_failed"`},
		{`{"transition": "submit", "revision": "1"}`, http.Header{"Content-Type": {"application/json"}}, 400, `"code":"invalid_parameter"`},
		{map[string]any{"transition": "submit", "revision": 1}, http.Header{"If-Match": {`"1"`}}, 200, `"revision":2`},
		{map[string]any{"transition": "allocate", "revision": 1}, nil, 412, `"code":"precondition_failed"`},
		{map[string]any{"transition": "allocate", "revision": 2}, nil, 200, `"status":"allocated"`},
	}
	for i, st := range steps {
		r := f.s.Do(t, http.MethodPost, tr, st.body, st.header)
		if r.StatusCode != st.wantStatus || !strings.Contains(string(r.Body), st.wantIn) {
			t.Fatalf("step %d %v: %d %s\nwant %d containing %s", i, st.body, r.StatusCode, r.Body, st.wantStatus, st.wantIn)
		}
	}
	var o struct {
		Status   string `json:"status"`
		Revision int    `json:"revision"`
	}
	f.s.Do(t, http.MethodGet, f.url("/v1/orders/"+string(f.order.ID)), nil, nil).JSON(t, &o)
	if o.Status != "allocated" || o.Revision != 3 {
		t.Fatalf("after the steps: %+v, want allocated at revision 3", o)
	}

	q := `mutation($id: ID!, $rev: Int) { transitionOrder(id: $id, transition: "start_picking", revision: $rev) { status revision } }`
	r := f.s.GraphQL(t, environment.Sandbox, q, map[string]any{"id": f.order.ID, "rev": 2})
	if len(r.Errors) != 1 || r.Errors[0].Code() != "CONFLICT" || r.Errors[0].Extensions["reason"] != "precondition_failed" {
		t.Fatalf("stale GraphQL revision: %+v", r.Errors)
	}
	var out struct {
		TransitionOrder struct {
			Status   string `json:"status"`
			Revision int    `json:"revision"`
		} `json:"transitionOrder"`
	}
	f.s.MustGraphQL(t, environment.Sandbox, q, map[string]any{"id": f.order.ID, "rev": 3}, &out)
	if out.TransitionOrder.Status != "picking" || out.TransitionOrder.Revision != 4 {
		t.Fatalf("GraphQL with the current revision: %+v", out)
	}
}
