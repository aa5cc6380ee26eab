package graph_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestItemPageRefsMatchEnt: a page of items whose part and hub are asked
// only for ids, sku and code answers what ent's eager loads answer (the
// same query with a fragment under node, which sends it to ent), in fewer
// statements, also when the page's rows are counted; a part or hub asked
// for more pages through ent with real values.
func TestItemPageRefsMatchEnt(t *testing.T) {
	srv, counter, f, ams := counted(t)
	rtm := f.hub("RTM2", "Rotterdam", "NL")
	p1, p2 := f.part("P-1", "Bolt"), f.part("P-2", "Nut")
	f.item(p1, ams, "5")
	f.item(p2, rtm, "7")
	f.item(p1, rtm, "9")
	// The hub under two aliases with different fields: ent's eager load
	// of a to-one edge kept the last alias's fields only (hub.code answered
	// "" through ent) until ent/entc.go's collection template merged them.
	const sel = `id quantity part { __typename id sku } hub { code } h2: hub { id }`
	answer := func(node, frag string) (string, int64) {
		t.Helper()
		counter.Reset()
		var out struct{ Items json.RawMessage }
		srv.MustGraphQL(t, prod, `query { items(first: 10) { edges { node { `+node+` } } pageInfo { hasNextPage } } }`+frag, nil, &out)
		return string(out.Items), counter.Count()
	}
	read, readStmts := answer(sel, "")
	viaEnt, entStmts := answer(sel+` ...F`, ` fragment F on Item { id }`)
	if read != viaEnt {
		t.Fatalf("with the references in the page's statement\n%s\nent\n%s", read, viaEnt)
	}
	for _, want := range []string{`"sku":"P-1"`, `"sku":"P-2"`, `"code":"AMS1"`, `"code":"RTM2"`, `"h2":{"id":"hub_`} {
		if !strings.Contains(read, want) || !strings.Contains(viaEnt, want) {
			t.Errorf("answers\n%s\n%s\nlack %s", read, viaEnt, want)
		}
	}
	t.Logf("statements: one %d, ent %d", readStmts, entStmts)
	if readStmts >= entStmts {
		t.Errorf("the page took %d statements, ent %d", readStmts, entStmts)
	}

	for query, want := range map[string]string{
		`items(first: 2) { totalCount edges { node { part { sku } hub { code } } } }`:      `"totalCount":3`,
		`items(first: 1) { edges { node { part { sku unitWeightKg } } } }`:                 `"unitWeightKg":0.125`,
		`items(first: 1) { edges { node { hub { code name } } } }`:                         `"name":"Amsterdam hub"`,
		`items(first: 0) { edges { node { part { sku } } } pageInfo { hasNextPage } }`:     `"hasNextPage":true`,
		`items(first: 1) { edges { node { ... on Item { part { sku } } hub { code } } } }`: `"sku":"P-1"`,
	} {
		var out map[string]any
		srv.MustGraphQL(t, prod, `query { `+query+` }`, nil, &out)
		b, _ := json.Marshal(out)
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: %s, want %s", query, b, want)
		}
	}
}
