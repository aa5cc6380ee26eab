package graph_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestOrderPageLinesMatchEnt: a page of orders whose lines' selection fits
// what internal/view reads answers what ent's eager loads answer (the
// same query with a fragment under node, which sends it to ent), lines in
// the same order under every alias, an order without lines with an empty
// list, in fewer statements; selections view does not read get their
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
	// view reads a line's optional columns (part_id, revision, the
	// timestamps) only when the selection asks for them, under any alias,
	// and answers as ent does either way.
	for node, want := range map[string][]string{
		`id lines { id quantity allocatedQuantity part { sku partName } }`: nil,
		`id lines { id revision }`:                               {"revision"},
		`id lines { partID }`:                                    {"part_id"},
		`id lines { part { id } }`:                               {"part_id"},
		`id lines { quantity } l2: lines { createdAt }`:          {"created_at", "updated_at"},
		`id lines { updatedAt part { __typename id } revision }`: {"part_id", "revision", "created_at", "updated_at"},
	} {
		read, _ := answer(node, "")
		var cols string
		for _, q := range counter.Statements() {
			if sel, _, ok := strings.Cut(q, " FROM "); ok && strings.Contains(q, "JOIN") && strings.Contains(sel, "order_lines") {
				cols = sel
			}
		}
		if cols == "" {
			t.Fatalf("%s: no lines statement in %q", node, counter.Statements())
		}
		for _, c := range []string{"part_id", "revision", "created_at", "updated_at"} {
			if strings.Contains(cols, c) != slices.Contains(want, c) {
				t.Errorf("%s: the lines statement reads %s: %v, want %v (%s)", node, c, strings.Contains(cols, c), slices.Contains(want, c), cols)
			}
		}
		if viaEnt := first(answer(node+` ...F`, ` fragment F on Order { id }`)); !reflect.DeepEqual(read, viaEnt) {
			t.Fatalf("%s: view answered\n%v\nent\n%v", node, read, viaEnt)
		}
	}
	read, readStmts := answer(sel, "")
	viaEnt, entStmts := answer(sel+` ...F`, ` fragment F on Order { id }`)
	if !reflect.DeepEqual(read, viaEnt) {
		a, _ := json.MarshalIndent(read, "", " ")
		b, _ := json.MarshalIndent(viaEnt, "", " ")
		t.Fatalf("view answered\n%s\nent\n%s", a, b)
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
	t.Logf("statements: view %d, ent %d", readStmts, entStmts)
	if readStmts >= entStmts {
		t.Errorf("view took %d statements, ent %d", readStmts, entStmts)
	}

	// What view does not read pages through ent, with real values.
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
// its id and code reads the codes in the page's own statement (view)
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

// TestOrderPageTrackingMatchesEnt: a page of orders whose trackingEntries
// ask for at most the newest three, newest first, with only the entries'
// own fields, reads them with the page's lines in the view's statements
// (REST's; one round trip on PostgreSQL) and answers what ent's eager load
// answers (the same query with a fragment under node, which sends it to
// ent): ties on occurredAt broken alike, fewer than asked, none, two
// aliases. Any other connection is ent's, with its real answer.
func TestOrderPageTrackingMatchesEnt(t *testing.T) {
	srv, counter, f, ams := counted(t)
	parts := f.lineArgs(2, "1")
	entry := func(order, number, at string, hub bool) {
		t.Helper()
		in := map[string]any{"orderID": order, "trackingNumber": number, "carrier": "DHL", "status": "in_transit", "occurredAt": at, "location": "L-" + number, "description": "D-" + number}
		if hub {
			in["hubID"] = ams
		}
		f.id(`mutation($in: CreateTrackingEntryInput!) { createTrackingEntry(input: $in) { id } }`, map[string]any{"in": in})
	}
	many := f.order(ams, parts...)
	for i, at := range []string{"2026-01-01T10:00:00Z", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00Z", "2026-01-02T10:00:00Z", "2026-01-04T09:00:00Z"} {
		entry(many, fmt.Sprint("M", i), at, i%2 == 0)
	}
	f.order(ams)
	two := f.order(ams, parts[:2]...)
	entry(two, "T0", "2026-02-01T10:00:00Z", false)
	entry(two, "T1", "2026-02-01T11:00:00Z", true)

	ent := func(q string) bool { // the statement is ent's eager load of the connection
		return strings.Contains(q, "pergroup")
	}
	answer := func(query, frag string, vars map[string]any) (string, []string) {
		t.Helper()
		counter.Reset()
		var out struct{ Orders json.RawMessage }
		srv.MustGraphQL(t, prod, query+frag, vars, &out)
		return string(out.Orders), counter.Statements()
	}
	const newest = `trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { __typename id createdAt updatedAt revision orderID trackingNumber carrier status hubID location description occurredAt } } }`
	for _, c := range []struct {
		query string
		vars  map[string]any
	}{
		{`query { orders(first: 10) { edges { node { id ` + newest + ` } } } }`, nil},
		{`query { orders(first: 10) { edges { node { id number lines { id quantity part { sku } } ` + newest +
			` t2: trackingEntries(first: 1, orderBy: {field: OCCURRED_AT, direction: DESC}) { edges { node { trackingNumber } } } } } pageInfo { hasNextPage } } }`, nil},
		{`query($n: Int!) { orders(first: 10) { edges { node { id trackingEntries(first: $n, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { id occurredAt } } } } } } }`, map[string]any{"n": 2}},
	} {
		read, readStmts := answer(c.query, "", c.vars)
		frag := strings.Replace(c.query, "node { id", "node { ...F id", 1)
		viaEnt, entStmts := answer(frag, ` fragment F on Order { id }`, c.vars)
		if read != viaEnt {
			t.Fatalf("%s:\norderread answered\n%s\nent\n%s", c.query, read, viaEnt)
		}
		if slices.ContainsFunc(readStmts, ent) || !slices.ContainsFunc(entStmts, ent) {
			t.Errorf("%s: ent read the entries (the view's statements %v; ent's %v)", c.query, readStmts, entStmts)
		}
		if len(readStmts) > len(entStmts) {
			t.Errorf("%s: %d statements, ent %d", c.query, len(readStmts), len(entStmts))
		}
	}
	// view reads an entry's optional columns (timestamps, revision,
	// hub, description) only when the selection asks for them, under any
	// alias, and answers as ent does either way.
	for node, want := range map[string][]string{
		`id trackingNumber carrier status location occurredAt`: nil,
		`id revision`:                         {"revision"},
		`hubID`:                               {"hub_id", "LEFT JOIN"},
		`description occurredAt`:              {"description"},
		`createdAt status`:                    {"created_at", "updated_at"},
		`updatedAt hubID description orderID`: {"updated_at", "created_at", "hub_id", "LEFT JOIN", "description"},
	} {
		conn := func(alias string) string {
			return alias + `trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { ` + node + ` } } }`
		}
		for _, q := range []string{conn(""), `id ` + conn("") + ` t2: trackingEntries(first: 1, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { id } } }`, conn("t3: ")} {
			read, stmts := answer(`query { orders(first: 10) { edges { node { id `+q+` } } } }`, "", nil)
			var cols string
			for _, st := range stmts {
				if strings.Contains(st, "tracking_entries") && !ent(st) {
					cols = st
				}
			}
			if cols == "" {
				t.Fatalf("%s: no tracking statement of the view's in %q", q, stmts)
			}
			for _, c := range []string{"created_at", "updated_at", "revision", "hub_id", "LEFT JOIN", "description"} {
				if strings.Contains(cols, c) != slices.Contains(want, c) {
					t.Errorf("%s: the entries' statement has %s: %v, want %v (%s)", q, c, strings.Contains(cols, c), slices.Contains(want, c), cols)
				}
			}
			viaEnt, _ := answer(`query { orders(first: 10) { edges { node { ...F `+q+` } } } }`, ` fragment F on Order { id }`, nil)
			if read != viaEnt {
				t.Fatalf("%s:\norderread answered\n%s\nent\n%s", q, read, viaEnt)
			}
		}
	}
	if read, _ := answer(`query { orders(first: 10) { edges { node { `+newest+` } } } }`, "", nil); !strings.Contains(read, `"trackingNumber":"M4"`) ||
		strings.Count(read, `"trackingNumber"`) != 5 || strings.Index(read, `"M4"`) > strings.Index(read, `"M1"`) {
		t.Errorf("the newest three of five and two of two, newest first: %s", read)
	}
	// What view does not read is ent's, with its real answer.
	for _, c := range []struct{ conn, want string }{
		{`trackingEntries(first: 4, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { trackingNumber } } }`, `"M3"`},
		{`trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { hub { code } } } }`, `"code":"AMS1"`},
		{`trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { pageInfo { hasNextPage } edges { node { id } } }`, `"hasNextPage":true`},
		{`trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { cursor node { id } } }`, `"cursor":"`},
		{`trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: ASC}]) { edges { node { trackingNumber } } }`, `"M0"`},
		{`trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}], where: {carrier: "DHL"}) { edges { node { trackingNumber } } }`, `"M4"`},
		{`trackingEntries(first: 3) { edges { node { trackingNumber } } }`, `"M0"`},
		// One orderBy object is a list of one: reading it as no order at
		// all would answer by id (the oldest entry, M0).
		{`trackingEntries(first: 1, orderBy: {field: OCCURRED_AT, direction: DESC}) { edges { cursor node { trackingNumber } } }`, `"M4"`},
	} {
		got, stmts := answer(`query { orders(first: 10) { edges { node { `+c.conn+` } } } }`, "", nil)
		if !strings.Contains(got, c.want) || !slices.ContainsFunc(stmts, ent) {
			t.Errorf("%s: %s (ent's statement: %v), want %s", c.conn, got, slices.ContainsFunc(stmts, ent), c.want)
		}
	}
}
