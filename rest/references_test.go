package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// Ids of the right types that name nothing.
const (
	noHub   = "hub_01JD3K0000000000000000000A"
	noPart  = "prt_01JD3K0000000000000000000A"
	noPart2 = "prt_01JD3K0000000000000000000B"
	noOrder = "ord_01JD3K0000000000000000000A"
)

// TestReferenceErrors: a write naming a hub, part or order that does not
// exist is a 422 naming each missing reference (the hub with every missing
// part at once), and writes nothing. The valid write leaves references to
// the foreign keys and checks them only after the database refused it
// (internal/service/refs.go); with an Idempotency-Key the write runs in the
// request's transaction, where PostgreSQL checks them first: both ways give
// the same answers, on both databases.
func TestReferenceErrors(t *testing.T) {
	s := apptest.New(t, apptest.Options{Log: testLog(t)})
	f := &fixture{s: s, ids: map[string]string{}}
	hub := f.post(t, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})["id"].(string)
	p1 := f.post(t, "/v1/parts", map[string]any{"sku": "P1", "part_name": "Bolt"})["id"].(string)
	p2 := f.post(t, "/v1/parts", map[string]any{"sku": "P2", "part_name": "Nut"})["id"].(string)
	o := f.post(t, "/v1/orders", map[string]any{"hub_id": hub, "lines": []any{map[string]any{"part_id": p1, "quantity": 1}}})
	order := o["id"].(string)
	line := o["lines"].([]any)[0].(map[string]any)["id"].(string)
	trk := f.post(t, "/v1/tracking-entries", map[string]any{"order_id": order, "tracking_number": "T1", "carrier": "DHL", "status": "in_transit", "hub_id": hub})["id"].(string)

	c := s.Env(environment.Production).DB.Client
	// state is what a failed write must leave as it was.
	state := func() [5]int { return apptest.OrderWriteState(t, c, line, trk) }
	type fe struct{ Field, Message string }
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
		want               []fe
	}{
		{"order: unknown hub", "POST", "/v1/orders", map[string]any{"hub_id": noHub, "lines": []any{map[string]any{"part_id": p1, "quantity": 1}}},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"order without lines: unknown hub", "POST", "/v1/orders", map[string]any{"hub_id": noHub},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"order: unknown part among its lines", "POST", "/v1/orders", map[string]any{"hub_id": hub, "lines": []any{
			map[string]any{"part_id": p1, "quantity": 1}, map[string]any{"part_id": noPart, "quantity": 2}, map[string]any{"part_id": p2, "quantity": 1}}},
			[]fe{{"lines[1].part_id", "part " + noPart + " does not exist"}}},
		{"order: unknown hub and parts at once", "POST", "/v1/orders", map[string]any{"hub_id": noHub, "lines": []any{
			map[string]any{"part_id": noPart, "quantity": 1}, map[string]any{"part_id": p1, "quantity": 1}, map[string]any{"part_id": noPart2, "quantity": 1}}},
			[]fe{{"hub_id", noHub + " does not exist"}, {"lines[0].part_id", "part " + noPart + " does not exist"}, {"lines[2].part_id", "part " + noPart2 + " does not exist"}}},
		{"order: unknown hub and part with other problems", "POST", "/v1/orders", map[string]any{"hub_id": noHub, "priority": "asap", "lines": []any{
			map[string]any{"part_id": noPart, "quantity": 1}, map[string]any{"part_id": p1, "quantity": 0}}},
			[]fe{{"hub_id", noHub + " does not exist"}, {"priority", `"asap" is not one of the allowed values: low, normal, high, urgent`},
				{"lines[1].quantity", "must be greater than 0"}, {"lines[0].part_id", "part " + noPart + " does not exist"}}},
		{"order: unknown hub and workflow", "POST", "/v1/orders", map[string]any{"hub_id": noHub, "workflow": "nope"},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"tracking: unknown order", "POST", "/v1/tracking-entries", map[string]any{"order_id": noOrder, "tracking_number": "T", "carrier": "C", "status": "in_transit"},
			[]fe{{"order_id", noOrder + " does not exist"}}},
		{"tracking: unknown order and hub", "POST", "/v1/tracking-entries", map[string]any{"order_id": noOrder, "hub_id": noHub, "tracking_number": "T", "carrier": "C", "status": "in_transit"},
			[]fe{{"order_id", noOrder + " does not exist"}}},
		{"tracking: unknown order, hub id of the wrong type", "POST", "/v1/tracking-entries", map[string]any{"order_id": noOrder, "hub_id": p1, "tracking_number": "T", "carrier": "C", "status": "in_transit"},
			[]fe{{"order_id", noOrder + " does not exist"}}},
		{"tracking: unknown hub", "POST", "/v1/tracking-entries", map[string]any{"order_id": order, "hub_id": noHub, "tracking_number": "T", "carrier": "C", "status": "in_transit"},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"tracking: unknown hub, delivered", "POST", "/v1/tracking-entries", map[string]any{"order_id": order, "hub_id": noHub, "tracking_number": "T", "carrier": "C", "status": "delivered"},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"tracking patch: unknown order", "PATCH", "/v1/tracking-entries/" + trk, map[string]any{"order_id": noOrder},
			[]fe{{"order_id", noOrder + " does not exist"}}},
		{"tracking patch: unknown hub", "PATCH", "/v1/tracking-entries/" + trk, map[string]any{"hub_id": noHub},
			[]fe{{"hub_id", noHub + " does not exist"}}},
		{"line: unknown part", "POST", "/v1/orders/" + order + "/lines", map[string]any{"part_id": noPart, "quantity": 1},
			[]fe{{"lines[0].part_id", "part " + noPart + " does not exist"}}},
		{"line patch: unknown part", "PATCH", "/v1/order-lines/" + line, map[string]any{"part_id": noPart},
			[]fe{{"part_id", noPart + " does not exist"}}},
		{"line patch: unknown part, stale revision", "PATCH", "/v1/order-lines/" + line, map[string]any{"part_id": noPart, "if_match": "7"},
			[]fe{{"part_id", noPart + " does not exist"}}},
	} {
		for _, key := range []string{"", "with Idempotency-Key"} {
			name := tc.name
			if key != "" {
				name += " (" + key + ")"
			}
			t.Run(name, func(t *testing.T) {
				h := http.Header{}
				if key != "" {
					h.Set("Idempotency-Key", name)
				}
				body := tc.body
				if rev, ok := body["if_match"]; ok {
					body = map[string]any{}
					for k, v := range tc.body {
						if k != "if_match" {
							body[k] = v
						}
					}
					h.Set("If-Match", `"`+rev.(string)+`"`)
				}
				before := state()
				r := s.Do(t, tc.method, s.URL+tc.path, body, h)
				var p struct {
					Code   string `json:"code"`
					Errors []fe   `json:"errors"`
				}
				r.JSON(t, &p)
				if r.StatusCode != http.StatusUnprocessableEntity || p.Code != "validation_failed" || len(p.Errors) != len(tc.want) {
					t.Fatalf("%d %s\nwant 422 with %v", r.StatusCode, r.Body, tc.want)
				}
				for i := range tc.want {
					if p.Errors[i] != tc.want[i] {
						t.Errorf("error %d = %v, want %v", i, p.Errors[i], tc.want[i])
					}
				}
				if after := state(); after != before {
					t.Errorf("orders, lines, tracking entries, line and entry revisions: %v, before %v", after, before)
				}
			})
		}
	}
}

// TestValidCreatesReadNoReferences: creating an order with lines, a line
// and a tracking entry sends no statement that reads the hub, the parts or
// the order before the INSERT: the foreign keys check them.
// PostgreSQL inside a GraphQL mutation of several root fields still checks
// first.
func TestValidCreatesReadNoReferences(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Log: testLog(t), Driver: counter.Wrap})
	f := &fixture{s: s, ids: map[string]string{}}
	hub := f.post(t, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})["id"].(string)
	p1 := f.post(t, "/v1/parts", map[string]any{"sku": "P1", "part_name": "Bolt"})["id"].(string)
	p2 := f.post(t, "/v1/parts", map[string]any{"sku": "P2", "part_name": "Nut"})["id"].(string)
	order := f.post(t, "/v1/orders", map[string]any{"hub_id": hub})["id"].(string)

	// reads lists the statements before the first INSERT INTO table that
	// read one of the referenced tables.
	reads := func(table string, refs ...string) []string {
		var out []string
		for _, q := range counter.Statements() {
			if strings.HasPrefix(q, "INSERT INTO") && strings.Contains(q, table) {
				return out
			}
			if strings.HasPrefix(q, "SELECT") {
				for _, r := range refs {
					if strings.Contains(q, " FROM `"+r+"`") || strings.Contains(q, ` FROM "`+r+`"`) {
						out = append(out, q)
					}
				}
			}
		}
		t.Fatalf("no INSERT INTO %s in %q", table, counter.Statements())
		return nil
	}
	for _, tc := range []struct {
		name, path, table string
		body              map[string]any
		refs              []string
	}{
		{"order with lines", "/v1/orders", "orders", map[string]any{"hub_id": hub, "lines": []any{map[string]any{"part_id": p1, "quantity": 1}, map[string]any{"part_id": p2, "quantity": 2}}}, []string{"hubs", "parts"}},
		{"tracking entry with a hub", "/v1/tracking-entries", "tracking_entries", map[string]any{"order_id": order, "hub_id": hub, "tracking_number": "T", "carrier": "C", "status": "in_transit"}, []string{"orders", "hubs"}},
		{"order line", "/v1/orders/" + order + "/lines", "order_lines", map[string]any{"part_id": p1, "quantity": 1}, []string{"parts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counter.Reset()
			f.post(t, tc.path, tc.body)
			if r := reads(tc.table, tc.refs...); len(r) > 0 {
				t.Errorf("reads before the INSERT: %q", r)
			}
		})
	}
	t.Run("graphql", func(t *testing.T) {
		for _, tc := range []struct {
			name, query, table string
			refs               []string
		}{
			{"createOrder", `mutation($h: ID!, $p: ID!, $q: ID!) { createOrder(input: {hubID: $h}, lines: [{partID: $p, quantity: 1}, {partID: $q, quantity: 2}]) { id } }`, "orders", []string{"hubs", "parts"}},
			{"createTrackingEntry", `mutation($o: ID!, $h: ID!) { createTrackingEntry(input: {orderID: $o, hubID: $h, trackingNumber: "T", carrier: "C", status: in_transit}) { id } }`, "tracking_entries", []string{"orders", "hubs"}},
		} {
			vars := map[string]any{"h": hub, "p": p1, "q": p2, "o": order}
			counter.Reset()
			s.MustGraphQL(t, environment.Production, tc.query, vars, nil)
			if r := reads(tc.table, tc.refs...); len(r) > 0 {
				t.Errorf("%s: reads before the INSERT: %q", tc.name, r)
			}
			// A second root field: on PostgreSQL a failed statement would
			// abort the first field's writes too, so each checks first.
			counter.Reset()
			s.MustGraphQL(t, environment.Production, strings.Replace(tc.query, "{", "{ first: __typename ", 1), vars, nil)
			r := reads(tc.table, tc.refs...)
			if apptest.Postgres() {
				if len(r) != len(tc.refs) {
					t.Errorf("%s with two root fields on PostgreSQL: reads before the INSERT %q, want one of each of %v", tc.name, r, tc.refs)
				}
			} else if len(r) > 0 {
				t.Errorf("%s with two root fields: reads before the INSERT: %q", tc.name, r)
			}
		}
	})
}

// TestUnnamedViolation: a foreign-key violation that the checks run after it
// cannot name (here a workflow id broken on the way to the INSERT: every
// reference the request names exists) is the 409 still_referenced of any
// foreign-key error, never a 500, through both interfaces, with and without
// a transaction around the request.
func TestUnnamedViolation(t *testing.T) {
	s := apptest.New(t, apptest.Options{Log: testLog(t)})
	f := &fixture{s: s, ids: map[string]string{}}
	hub := f.post(t, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})["id"].(string)
	p1 := f.post(t, "/v1/parts", map[string]any{"sku": "P1", "part_name": "Bolt"})["id"].(string)
	c := s.Env(environment.Production).DB.Client
	c.Order.Use(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if om, ok := m.(*ent.OrderMutation); ok && om.Op().Is(ent.OpCreate) {
				if ref, _ := om.CustomerRef(); ref == "BREAK" {
					om.SetWorkflowID("wfl_01JD3K0000000000000000000A")
				}
			}
			return next.Mutate(ctx, m)
		})
	})
	count := func() int {
		n, err := c.Order.Query().Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	body := map[string]any{"hub_id": hub, "customer_ref": "BREAK", "lines": []any{map[string]any{"part_id": p1, "quantity": 1}}}
	for _, h := range []http.Header{nil, {"Idempotency-Key": {"break"}}} {
		r := s.Do(t, "POST", s.URL+"/v1/orders", body, h)
		var p struct{ Code string }
		r.JSON(t, &p)
		if r.StatusCode != http.StatusConflict || p.Code != "still_referenced" {
			t.Fatalf("REST %v: %d %s", h, r.StatusCode, r.Body)
		}
	}
	g := s.GraphQL(t, environment.Production, `mutation($h: ID!, $p: ID!) { createOrder(input: {hubID: $h, customerRef: "BREAK"}, lines: [{partID: $p, quantity: 1}]) { id } }`,
		map[string]any{"h": hub, "p": p1})
	if len(g.Errors) != 1 || g.Errors[0].Code() != "CONFLICT" || g.Errors[0].Extensions["reason"] != "still_referenced" {
		t.Fatalf("GraphQL: %+v", g.Errors)
	}
	if n := count(); n != before {
		t.Fatalf("%d orders, before %d", n, before)
	}
}
