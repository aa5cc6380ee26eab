package graph_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestOrderPageLinesMatchEnt: a page of orders whose lines' selection fits
// what internal/orderread reads answers what ent's eager loads answer (the
// same query with a fragment under node, which sends it to ent), lines in
// the same order under every alias, an order without lines with an empty
// list, in fewer statements; selections orderread does not read get their
// real values from ent.
func TestOrderPageLinesMatchEnt(t *testing.T) {
	srv, counter, f, hub := counted(t)
	parts := f.lineArgs(6, "1.5")
	f.order(hub, parts...)
	f.order(hub)
	f.order(hub, parts[4:]...)
	f.order(hub, parts[:4]...)
	const sel = `id number lines { id createdAt updatedAt revision orderID partID quantity allocatedQuantity shippedQuantity part { id sku partName } }
		l2: lines { id part { __typename sku } } trackingEntries(first: 3) { edges { node { id } } }`
	answer := func(node, frag string) ([]any, int64) {
		t.Helper()
		counter.Reset()
		var out struct {
			Orders struct {
				Edges []struct{ Node map[string]any }
			}
		}
		srv.MustGraphQL(t, prod, `query { orders(first: 10) { edges { node { `+node+` } } pageInfo { hasNextPage } } }`+frag, nil, &out)
		var nodes []any
		for _, e := range out.Orders.Edges {
			nodes = append(nodes, e.Node)
		}
		return nodes, counter.Count()
	}
	// Without a line's timestamps in the selection, orderread reads none.
	const untimed = `id lines { id quantity allocatedQuantity part { sku partName } }`
	read0, _ := answer(untimed, "")
	for _, q := range counter.Statements() {
		if strings.Contains(q, "order_lines") && strings.Contains(q, "created_at") {
			t.Errorf("without a line's timestamps in the selection, the lines statement reads them: %s", q)
		}
	}
	if viaEnt := first(answer(untimed+` ...F`, ` fragment F on Order { id }`)); !reflect.DeepEqual(read0, viaEnt) {
		t.Fatalf("without timestamps, orderread answered\n%v\nent\n%v", read0, viaEnt)
	}
	read, readStmts := answer(sel, "")
	viaEnt, entStmts := answer(sel+` ...F`, ` fragment F on Order { id }`)
	if !reflect.DeepEqual(read, viaEnt) {
		a, _ := json.MarshalIndent(read, "", " ")
		b, _ := json.MarshalIndent(viaEnt, "", " ")
		t.Fatalf("orderread answered\n%s\nent\n%s", a, b)
	}
	var counts []int
	for _, n := range read {
		ls, _ := n.(map[string]any)["lines"].([]any)
		l2, _ := n.(map[string]any)["l2"].([]any)
		if len(ls) != len(l2) {
			t.Errorf("lines %d, l2 %d", len(ls), len(l2))
		}
		counts = append(counts, len(ls))
	}
	slices.Sort(counts)
	if !reflect.DeepEqual(counts, []int{0, 2, 4, 6}) {
		t.Errorf("lines per order %v, want 0, 2, 4 and 6", counts)
	}
	t.Logf("statements: orderread %d, ent %d", readStmts, entStmts)
	if readStmts >= entStmts {
		t.Errorf("orderread took %d statements, ent %d", readStmts, entStmts)
	}

	// What orderread does not read pages through ent, with real values.
	for node, want := range map[string]string{
		`lines { part { sku unitWeightKg } }`:                           `"unitWeightKg":0.125`,
		`lines { order { number } }`:                                    `"order":{"number":"`,
		`lines { id } ... on Order { lines { part { unitWeightKg } } }`: `"unitWeightKg":0.125`,
	} {
		var out struct{ Orders json.RawMessage }
		srv.MustGraphQL(t, prod, `query { orders(first: 1) { edges { node { id `+node+` } } } }`, nil, &out)
		if !strings.Contains(string(out.Orders), want) {
			t.Errorf("%s: %s, want %s", node, out.Orders, want)
		}
	}
}

func first[A, B any](a A, _ B) A { return a }

// TestOrderPageHubsMatchEnt: a page of orders whose hub is asked only for
// its id and code reads the codes in the page's own statement (refcolumn)
// and answers what ent's eager load answers (the same query with a
// fragment under node, which sends it to ent), with the lines read by hand
// or not, in one statement fewer; counted pages and a hub asked for more
// answer real values.
func TestOrderPageHubsMatchEnt(t *testing.T) {
	srv, counter, f, ams := counted(t)
	rtm := f.hub("RTM2", "Rotterdam", "NL")
	parts := f.lineArgs(2, "1")
	f.order(ams, parts...)
	f.order(rtm)
	f.order(rtm, parts...)
	answer := func(node, frag string) (string, int64) {
		t.Helper()
		counter.Reset()
		var out struct{ Orders json.RawMessage }
		srv.MustGraphQL(t, prod, `query { orders(first: 10) { edges { node { `+node+` } } pageInfo { hasNextPage } } }`+frag, nil, &out)
		return string(out.Orders), counter.Count()
	}
	for _, sel := range []string{
		`id number hub { __typename id code } h2: hub { id }`,
		`id hub { code } lines { id quantity part { sku } }`,
	} {
		read, readStmts := answer(sel, "")
		viaEnt, entStmts := answer(sel+` ...F`, ` fragment F on Order { id }`)
		if read != viaEnt {
			t.Fatalf("%s: with the codes in the page's statement\n%s\nent\n%s", sel, read, viaEnt)
		}
		for _, want := range []string{`"code":"AMS1"`, `"code":"RTM2"`} {
			if !strings.Contains(read, want) {
				t.Errorf("%s: %s lacks %s", sel, read, want)
			}
		}
		t.Logf("%s: statements %d, ent %d", sel, readStmts, entStmts)
		if readStmts >= entStmts {
			t.Errorf("%s: the page took %d statements, ent %d", sel, readStmts, entStmts)
		}
	}
	counter.Reset()
	answer(`id hub { code }`, "")
	for _, q := range counter.Statements() {
		if strings.HasPrefix(q, "SELECT `hubs`") || strings.HasPrefix(q, `SELECT "hubs"`) {
			t.Errorf("a statement of its own reads the hubs: %s", q)
		}
	}
	for query, want := range map[string]string{
		`orders(first: 2) { totalCount edges { node { hub { code } } } }`:       `"totalCount":3`,
		`orders(first: 1) { edges { node { hub { code name } } } }`:             `"name":"`,
		`orders(first: 1) { edges { node { ... on Order { hub { code } } } } }`: `"code":"`,
	} {
		var out map[string]any
		srv.MustGraphQL(t, prod, `query { `+query+` }`, nil, &out)
		b, _ := json.Marshal(out)
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: %s, want %s", query, b, want)
		}
	}
}
