package graph_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestOrderNodeMatchesEnt: node(id:) for an order whose selection fits what
// internal/orderread reads answers what ent's eager loads answer (the same
// selection plus a field that only ent reads, the workflow, with that field
// taken out), lines in the same order (six lines created in one
// millisecond), under every alias,
// in fewer statements; and an unknown order gets ent's error.
func TestOrderNodeMatchesEnt(t *testing.T) {
	srv, counter, f, hub := counted(t)
	id := f.order(hub, f.lineArgs(6, "1.5")...)
	const sel = `__typename id createdAt updatedAt revision number status workflowID hubID customerRef priority
		shipToName shipToLine1 shipToLine2 shipToCity shipToPostalCode shipToCountry dueAt hub { __typename id code }
		lines { id createdAt updatedAt revision orderID partID quantity allocatedQuantity shippedQuantity part { id sku partName } }
		l2: lines { id part { __typename sku } } ...F`
	const frag = ` fragment F on Order { hub { code } }`
	answer := func(extra string, vars map[string]any) (map[string]any, int64) {
		t.Helper()
		counter.Reset()
		var out struct{ Node map[string]any }
		srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { `+sel+extra+` } } }`+frag, vars, &out)
		return out.Node, counter.Count()
	}
	vars := map[string]any{"id": id}
	read, readStmts := answer("", vars)
	viaEnt, entStmts := answer(" workflow { id }", vars)
	delete(viaEnt, "workflow")
	if !reflect.DeepEqual(read, viaEnt) {
		a, _ := json.MarshalIndent(read, "", " ")
		b, _ := json.MarshalIndent(viaEnt, "", " ")
		t.Fatalf("orderread answered\n%s\nent\n%s", a, b)
	}
	if ls, _ := read["lines"].([]any); len(ls) != 6 {
		t.Fatalf("lines: %v", read["lines"])
	}
	t.Logf("statements: orderread %d, ent %d", readStmts, entStmts)
	if readStmts >= entStmts {
		t.Errorf("orderread took %d statements, ent %d", readStmts, entStmts)
	}

	// Fields orderread does not read send the whole read to ent: each answer
	// carries the field's real value (read by hand, it would be empty, or
	// fail for an edge of a row without a client).
	for extra, want := range map[string]string{
		`hub { code name }`:                   `"name":"Amsterdam hub"`,
		`lines { part { sku unitWeightKg } }`: `"unitWeightKg":0.125`,
		`lines { order { number } }`:          `"order":{"number":"` + read["number"].(string) + `"}`,
		`h: hub { id } allowedTransitions`:    `"allowedTransitions":[`,
	} {
		var out struct{ Node json.RawMessage }
		srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { id `+extra+` } } }`, vars, &out)
		if !strings.Contains(string(out.Node), want) {
			t.Errorf("%s: %s, want %s", extra, out.Node, want)
		}
	}

	unknown := map[string]any{"id": "ord_01KWKG2EX010E600KEWAPS2TAV"}
	for _, extra := range []string{"", " workflow { id }"} {
		r := srv.GraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { `+sel+extra+` } } }`+frag, unknown)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" || !strings.Contains(string(r.Data), `"node":null`) {
			t.Errorf("unknown order (%q): %s %+v", extra, r.Data, r.Errors)
		}
	}
}
