package graph_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// TestNoNPlusOne counts SQL statements: a nested query costs the same number
// of statements for 5 orders as for 50.
func TestNoNPlusOne(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	f := newFixture(t, srv, prod)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	parts := []string{f.part("P-1", "Bolt"), f.part("P-2", "Nut"), f.part("P-3", "Washer")}
	for i := range 50 {
		o := f.order(hub, parts[i%3], "1", parts[(i+1)%3], "2.5")
		f.tracking(o, fmt.Sprintf("TRK%03d", i), "label_created")
		f.tracking(o, fmt.Sprintf("TRK%03d", i), "in_transit")
	}
	const q = `query($n: Int!) { orders(first: $n) { totalCount edges { node { number status
		hub { code }
		lines { quantity part { sku } }
		trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { status } } }
	} } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 50} {
		counter.Reset()
		var out struct {
			Orders struct {
				Edges []struct {
					Node struct {
						Lines           []struct{ Part struct{ Sku string } }
						TrackingEntries struct {
							Edges []struct{ Node struct{ Status string } }
						}
					}
				}
			}
		}
		srv.MustGraphQL(t, prod, q, map[string]any{"n": n}, &out)
		statements[n] = counter.Count()
		if len(out.Orders.Edges) != n {
			t.Fatalf("first: %d returned %d orders", n, len(out.Orders.Edges))
		}
		for _, e := range out.Orders.Edges {
			if len(e.Node.Lines) != 2 || e.Node.Lines[0].Part.Sku == "" || len(e.Node.TrackingEntries.Edges) != 2 {
				t.Fatalf("incomplete order: %+v", e.Node)
			}
		}
	}
	t.Logf("statements: %v", statements)
	if statements[5] != statements[50] {
		t.Fatalf("statements grow with the page: %v", statements)
	}
	if statements[50] > 8 {
		t.Fatalf("%d statements for one nested query; want a small constant", statements[50])
	}
}

// TestNestedConnectionsArePaged: a nested connection selected without
// first/last gets the default page size, and one above the maximum is refused.
func TestNestedConnectionsArePaged(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	for i := range 60 {
		f.item(f.part(fmt.Sprintf("P-%02d", i), "Part"), hub, "1")
	}
	var out struct {
		Hubs struct {
			Edges []struct {
				Node struct {
					Items struct {
						TotalCount int
						PageInfo   struct{ HasNextPage bool }
						Edges      []struct{ Node struct{ ID string } }
					}
				}
			}
		}
	}
	srv.MustGraphQL(t, prod, `{ hubs { edges { node { items { totalCount pageInfo { hasNextPage } edges { node { id } } } } } } }`, nil, &out)
	items := out.Hubs.Edges[0].Node.Items
	if len(items.Edges) != 50 || items.TotalCount != 60 || !items.PageInfo.HasNextPage {
		t.Fatalf("nested default page: %d edges, total %d, next %v", len(items.Edges), items.TotalCount, items.PageInfo.HasNextPage)
	}
	for _, q := range []string{
		`{ hubs { edges { node { items(first: 501) { totalCount } } } } }`,
		`query($n: Int) { hubs { edges { node { items(last: $n) { totalCount } } } } }`,
	} {
		r := srv.GraphQL(t, prod, q, map[string]any{"n": 9999})
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" {
			t.Fatalf("%s: %d %+v", q, r.Status, r.Errors)
		}
	}
}

// TestCountOnlyWhenAsked: a page selecting pageInfo but not totalCount runs
// one statement (no COUNT); selecting totalCount adds exactly one. The
// statements every request costs (authentication) are measured and left out.
func TestCountOnlyWhenAsked(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	f := newFixture(t, srv, prod)
	for i := range 3 {
		f.part(fmt.Sprintf("P-%d", i), "Hex bolt")
	}
	srv.MustGraphQL(t, prod, `{ parts { totalCount } }`, nil, nil) // warm up auth bookkeeping
	// What a request costs before any resolver (authentication).
	counter.Reset()
	srv.MustGraphQL(t, prod, `{ __typename }`, nil, nil)
	overhead := counter.Count()
	for _, tc := range []struct {
		query string
		want  int64
	}{
		{`{ parts(first: 2, where: {partNameContainsFold: "bolt"}) { pageInfo { hasNextPage endCursor } edges { node { id } } } }`, 1},
		{`{ parts(first: 2, where: {partNameContainsFold: "bolt"}) { totalCount pageInfo { hasNextPage } edges { node { id } } } }`, 2},
		{`{ parts(first: 2) { pageInfo { hasNextPage } } }`, 1},
	} {
		counter.Reset()
		var out struct {
			Parts struct {
				TotalCount int
				PageInfo   struct{ HasNextPage bool }
			}
		}
		srv.MustGraphQL(t, prod, tc.query, nil, &out)
		if got := counter.Count() - overhead; got != tc.want {
			t.Errorf("%s: %d statements, want %d", tc.query, got, tc.want)
		}
		if !out.Parts.PageInfo.HasNextPage {
			t.Errorf("%s: hasNextPage false with 3 rows and a page of 2", tc.query)
		}
	}
}

// TestMutationAnswerNoNPlusOne: a mutation's order, asked for with its lines'
// parts, costs the same number of statements with 1 line as with 6 (the
// answer is loaded as a query loads it), and the parts are right.
func TestMutationAnswerNoNPlusOne(t *testing.T) {
	srv, counter, f, hub := counted(t)
	parts := f.lineArgs(6, "1")
	const create = `mutation($in: CreateOrderInput!, $lines: [OrderLineInput!]) {
		createOrder(input: $in, lines: $lines) { id status lines { quantity part { sku } } } }`
	const submit = `mutation($id: ID!) { transitionOrder(id: $id, transition: "submit") { status lines { part { sku } } } }`
	statements := map[int][2]int64{}
	for _, n := range []int{1, 1, 6} { // the first one warms the caches
		var lines []map[string]any
		for i := range n {
			lines = append(lines, map[string]any{"partID": parts[2*i], "quantity": "1"})
		}
		var out struct {
			CreateOrder struct {
				ID    string
				Lines []struct{ Part struct{ Sku string } }
			}
			TransitionOrder struct {
				Status string
				Lines  []struct{ Part struct{ Sku string } }
			}
		}
		counter.Reset()
		srv.MustGraphQL(t, prod, create, map[string]any{"in": map[string]any{"hubID": hub}, "lines": lines}, &out)
		created := counter.Count()
		counter.Reset()
		srv.MustGraphQL(t, prod, submit, map[string]any{"id": out.CreateOrder.ID}, &out)
		statements[n] = [2]int64{created, counter.Count()}
		for _, ls := range [][]struct{ Part struct{ Sku string } }{out.CreateOrder.Lines, out.TransitionOrder.Lines} {
			if len(ls) != n {
				t.Fatalf("%d lines, want %d: %+v", len(ls), n, out)
			}
			for i, l := range ls {
				if l.Part.Sku != fmt.Sprintf("P-%d", i) {
					t.Fatalf("line %d: part %q: %+v", i, l.Part.Sku, out)
				}
			}
		}
		if out.TransitionOrder.Status != "open" {
			t.Fatalf("status %q", out.TransitionOrder.Status)
		}
	}
	t.Logf("statements (create, submit) for 1 and 6 lines: %v", statements)
	if statements[1] != statements[6] {
		t.Fatalf("statements grow with the lines: %v", statements)
	}
}

// TestMutationAnswerEdgesAsQuery: the answer of a mutation on an item, an
// order line or a tracking entry that follows edges is what a query of the
// same node answers, read as a query reads it: no statement is ent's edge
// query from the row (a join on a subquery of the row's id, which SQLite
// prepares again at every use), and a list under an edge (the order's
// lines with their parts) costs the same statements for 1 line as for 6.
func TestMutationAnswerEdgesAsQuery(t *testing.T) {
	srv, counter, f, hub := counted(t)
	lines := f.lineArgs(6, "2")
	extra := f.part("P-X", "Nut")
	orders := map[int]string{1: f.order(hub, lines[:2]...), 6: f.order(hub, lines...)}
	entries := map[int]string{1: f.tracking(orders[1], "T-1", "in_transit"), 6: f.tracking(orders[6], "T-6", "in_transit")}
	const order = `order { number hub { code } lines { quantity part { sku } } }`
	cases := []struct {
		name, mutation, typ, sel string
		vars                     func(n int) map[string]any
	}{
		{"createTrackingEntry", `mutation($in: CreateTrackingEntryInput!) { m: createTrackingEntry(input: $in) { SEL } }`,
			"TrackingEntry", `id status hub { code } ` + order, func(n int) map[string]any {
				return map[string]any{"in": map[string]any{"orderID": orders[n], "trackingNumber": "N", "carrier": "DHL", "status": "in_transit", "hubID": hub}}
			}},
		{"updateTrackingEntry", `mutation($id: ID!) { m: updateTrackingEntry(id: $id, input: {location: "Utrecht"}) { SEL } }`,
			"TrackingEntry", `id location hub { code } ` + order, func(n int) map[string]any { return map[string]any{"id": entries[n]} }},
		{"createOrderLine", `mutation($in: CreateOrderLineInput!) { m: createOrderLine(input: $in) { SEL } }`,
			"OrderLine", `id quantity part { sku } ` + order, func(n int) map[string]any {
				return map[string]any{"in": map[string]any{"orderID": orders[n], "partID": extra, "quantity": "1"}}
			}},
		{"createItem", `mutation($in: CreateItemInput!) { m: createItem(input: $in) { SEL } }`,
			"Item", `id quantity part { sku } hub { code }`, func(n int) map[string]any {
				return map[string]any{"in": map[string]any{"partID": lines[0], "hubID": hub, "quantity": fmt.Sprint(n)}}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			statements := map[int]int64{}
			for _, n := range []int{1, 6} {
				counter.Reset()
				var out struct{ M json.RawMessage }
				srv.MustGraphQL(t, prod, strings.Replace(c.mutation, "SEL", c.sel, 1), c.vars(n), &out)
				statements[n] = counter.Count()
				for _, s := range counter.Statements() {
					if strings.Contains(s, "JOIN (SELECT") {
						t.Errorf("%d: an edge read from the row: %s", n, s)
					}
				}
				var id struct{ ID string }
				if err := json.Unmarshal(out.M, &id); err != nil {
					t.Fatal(err)
				}
				var q struct{ Node json.RawMessage }
				srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on `+c.typ+` { `+c.sel+` } } }`, map[string]any{"id": id.ID}, &q)
				if string(out.M) != string(q.Node) {
					t.Errorf("%d: the mutation answered\n%s\nthe query\n%s", n, out.M, q.Node)
				}
			}
			if statements[1] != statements[6] {
				t.Errorf("statements for 1 and 6 lines: %v", statements)
			}
		})
	}
}

// TestOrderMutationAnswersReadByHand: the answers of createOrder and
// transitionOrder (submit, and allocate, which reserves) whose selection
// internal/view covers are read by hand, as node(id:) reads them: at
// least two statements fewer than ent's eager loads of the same selection
// with the workflow added, and equal to ent's read of the order (node(id:)
// with the workflow, which goes through ent's Noder, the workflow taken
// out), lines in the same order, for 1 and 6 lines.
func TestOrderMutationAnswersReadByHand(t *testing.T) {
	srv, counter, f, hub := counted(t)
	lines := f.lineArgs(6, "2")
	for i := 0; i < len(lines); i += 2 {
		f.item(lines[i].(string), hub, "1000")
	}
	const fit = `id number status revision hub { id code } lines { id quantity allocatedQuantity part { id sku partName } }`
	const withWorkflow = fit + ` workflow { key }`
	const create = `mutation($in: CreateOrderInput!, $lines: [OrderLineInput!]) { m: createOrder(input: $in, lines: $lines) { SEL } }`
	const transition = `mutation($id: ID!, $t: String!) { m: transitionOrder(id: $id, transition: $t) { SEL } }`
	run := func(mutation, sel string, vars map[string]any) (map[string]any, int64) {
		t.Helper()
		counter.Reset()
		var out struct{ M map[string]any }
		srv.MustGraphQL(t, prod, strings.Replace(mutation, "SEL", sel, 1), vars, &out)
		return out.M, counter.Count()
	}
	asEnt := func(what string, answer map[string]any) {
		t.Helper()
		var q struct{ Node map[string]any }
		srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { `+withWorkflow+` } } }`, map[string]any{"id": answer["id"]}, &q)
		delete(q.Node, "workflow")
		if !reflect.DeepEqual(answer, q.Node) {
			t.Errorf("%s answered\n%v\nent reads\n%v", what, answer, q.Node)
		}
	}
	for _, n := range []int{1, 6} {
		ls := []map[string]any{}
		for i := 0; i < 2*n; i += 2 {
			ls = append(ls, map[string]any{"partID": lines[i], "quantity": lines[i+1]})
		}
		vars := map[string]any{"in": map[string]any{"hubID": hub, "customerRef": "C"}, "lines": ls}
		byHand, fewer := run(create, fit, vars)
		asEnt(fmt.Sprintf("createOrder, %d lines,", n), byHand)
		other, more := run(create, withWorkflow, vars)
		if more-fewer < 2 {
			t.Errorf("createOrder, %d lines: %d statements, %d with the workflow: the answer was not read by hand", n, fewer, more)
		}
		for _, tr := range []string{"submit", "allocate"} {
			a, fewer := run(transition, fit, map[string]any{"id": byHand["id"], "t": tr})
			asEnt(fmt.Sprintf("%s, %d lines,", tr, n), a)
			if _, more := run(transition, withWorkflow, map[string]any{"id": other["id"], "t": tr}); more-fewer < 2 {
				t.Errorf("%s, %d lines: %d statements, %d with the workflow: the answer was not read by hand", tr, n, fewer, more)
			}
			if tr == "allocate" && a["status"] != "allocated" {
				t.Errorf("allocate, %d lines: status %v", n, a["status"])
			}
		}
	}
}

// TestMutationAnswerIDEdgesFromRow: a mutation's answer whose edges ask
// for their node's id alone is answered from the row's foreign keys, with
// no statement reading the row or the edge again — at least one statement
// fewer than the same selection asking for one more field of the edge —
// and it is what a query of the same node answers. An edge hidden in a
// fragment that selects more is read.
func TestMutationAnswerIDEdgesFromRow(t *testing.T) {
	srv, counter, f, hub := counted(t)
	lines := f.lineArgs(1, "2")
	order := f.order(hub, lines...)
	extra := f.part("P-X", "Nut")
	cases := []struct {
		name, mutation, typ, sel, more string
		vars                           map[string]any
	}{
		{"createTrackingEntry", `mutation($in: CreateTrackingEntryInput!) { m: createTrackingEntry(input: $in) { SEL } }`,
			"TrackingEntry", `id status order { id } hub { __typename id }`, `id status order { id } hub { id code }`,
			map[string]any{"in": map[string]any{"orderID": order, "trackingNumber": "N", "carrier": "DHL", "status": "in_transit", "hubID": hub}}},
		{"createOrderLine", `mutation($in: CreateOrderLineInput!) { m: createOrderLine(input: $in) { SEL } }`,
			"OrderLine", `id quantity o: order { id } part { id }`, `id quantity o: order { id } part { id ... on Part { sku } }`,
			map[string]any{"in": map[string]any{"orderID": order, "partID": extra, "quantity": "1"}}},
		{"createItem", `mutation($in: CreateItemInput!) { m: createItem(input: $in) { SEL } }`,
			"Item", `id part { id } hub { id }`, `id part { id } hub { id code }`,
			map[string]any{"in": map[string]any{"partID": extra, "hubID": hub, "quantity": "3"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			count := map[string]int64{}
			for _, sel := range []string{c.sel, c.more} {
				if c.name == "createItem" && sel == c.more {
					// One item per part and hub: the second create needs a
					// part of its own.
					c.vars["in"].(map[string]any)["partID"] = f.part("P-Y", "Bolt")
				}
				counter.Reset()
				var out struct{ M json.RawMessage }
				srv.MustGraphQL(t, prod, strings.Replace(c.mutation, "SEL", sel, 1), c.vars, &out)
				count[sel] = counter.Count()
				var id struct{ ID string }
				if err := json.Unmarshal(out.M, &id); err != nil {
					t.Fatal(err)
				}
				var q struct{ Node json.RawMessage }
				srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on `+c.typ+` { `+sel+` } } }`, map[string]any{"id": id.ID}, &q)
				if string(out.M) != string(q.Node) {
					t.Errorf("%s: the mutation answered\n%s\nthe query\n%s", sel, out.M, q.Node)
				}
			}
			if count[c.sel] >= count[c.more] {
				t.Errorf("statements: %d with ids only, %d with one more field: the id-only edges were read", count[c.sel], count[c.more])
			}
		})
	}
}
