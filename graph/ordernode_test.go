package graph_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestOrderNodeMatchesEnt: node(id:) for an order whose selection fits what
// internal/view reads answers what ent's eager loads answer (the same
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
		t.Fatalf("view answered\n%s\nent\n%s", a, b)
	}
	if ls, _ := read["lines"].([]any); len(ls) != 6 {
		t.Fatalf("lines: %v", read["lines"])
	}
	t.Logf("statements: view %d, ent %d", readStmts, entStmts)
	if readStmts >= entStmts {
		t.Errorf("view took %d statements, ent %d", readStmts, entStmts)
	}

	// Fields view does not read send the whole read to ent: each answer
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

// TestOrderMutationAnswersMatchReads: createOrder, updateOrder and
// transitionOrder (submit, then allocate, which moves the lines' allocated
// quantities) answer a selection that fits what view reads from the
// row their event was rendered from (graph/ordernode.go renderedOrder):
// the same answer as node(id:) right after, under every alias, in fewer
// statements than the read again that a field outside it (the workflow)
// still takes, and in as many as REST's answers to the same operations
// (which come from the same rows). Quantities with trailing zeros and more decimals than the
// input's check that the row holds what the database gives back.
func TestOrderMutationAnswersMatchReads(t *testing.T) {
	srv, counter, f, hub := counted(t)
	var lines []map[string]any
	for i, q := range []string{"1.5", "2", "0.125", "3.10", "1", "7.000"} {
		p := f.part(fmt.Sprintf("P-%d", i), fmt.Sprintf("Part %d", i))
		f.item(p, hub, "100")
		lines = append(lines, map[string]any{"partID": p, "quantity": q})
	}
	const sel = `__typename id createdAt updatedAt revision number status workflowID hubID customerRef priority
		shipToName shipToLine1 shipToLine2 shipToCity shipToPostalCode shipToCountry dueAt hub { __typename id code }
		lines { id createdAt updatedAt revision orderID partID quantity allocatedQuantity shippedQuantity part { id sku partName } }
		l2: lines { id part { __typename sku } } ...F`
	const frag = ` fragment F on Order { hub { code } }`
	mutate := func(field, extra string, vars map[string]any) (map[string]any, int64) {
		t.Helper()
		counter.Reset()
		var out map[string]map[string]any
		decl := "($in: CreateOrderInput!, $lines: [OrderLineInput!])"
		if strings.Contains(field, "$id") {
			decl, vars = "($id: ID!)", map[string]any{"id": vars["id"]}
		}
		srv.MustGraphQL(t, prod, `mutation`+decl+` { m: `+field+` { `+sel+extra+` } }`+frag, vars, &out)
		return out["m"], counter.Count()
	}
	read := func(id any) map[string]any {
		t.Helper()
		var out struct{ Node map[string]any }
		srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { `+sel+` } } }`+frag, map[string]any{"id": id}, &out)
		return out.Node
	}
	same := func(step string, answer map[string]any) {
		t.Helper()
		if got := read(answer["id"]); !reflect.DeepEqual(answer, got) {
			a, _ := json.MarshalIndent(answer, "", " ")
			b, _ := json.MarshalIndent(got, "", " ")
			t.Fatalf("%s answered\n%s\nnode(id:) reads\n%s", step, a, b)
		}
	}
	vars := map[string]any{"in": map[string]any{"hubID": hub, "customerRef": "R-1"}, "lines": lines}
	const create = `createOrder(input: $in, lines: $lines)`

	// The same operations through REST, which answers from the same rows:
	// the GraphQL answers read nothing more than REST's.
	rest := func(method, path string, body any) int64 {
		t.Helper()
		counter.Reset()
		r := srv.Do(t, method, srv.Base(prod)+path, body, nil)
		if r.StatusCode >= 300 {
			t.Fatalf("%s %s: %d", method, path, r.StatusCode)
		}
		return counter.Count()
	}
	var restLines []map[string]any
	for _, l := range lines {
		restLines = append(restLines, map[string]any{"part_id": l["partID"], "quantity": l["quantity"]})
	}

	f.order(hub) // the workflow's version, read once per process, is cached for all below
	created, rendered := mutate(create, "", vars)
	restCreate := rest("POST", "/v1/orders", map[string]any{"hub_id": hub, "customer_ref": "R-REST", "lines": restLines})
	var restOrder struct{ Data []struct{ ID string } }
	srv.Do(t, "GET", srv.Base(prod)+"/v1/orders?customer_ref=R-REST", nil, nil).JSON(t, &restOrder)
	if len(restOrder.Data) != 1 {
		t.Fatalf("REST orders: %+v", restOrder)
	}
	restID := restOrder.Data[0].ID
	same("createOrder", created)
	if rendered != restCreate {
		t.Errorf("createOrder took %d statements, POST /v1/orders %d", rendered, restCreate)
	}
	if ls, _ := created["lines"].([]any); len(ls) != 6 {
		t.Fatalf("lines: %v", created["lines"])
	}
	withWorkflow, reread := mutate(create, " workflow { id }", vars)
	delete(withWorkflow, "workflow")
	same("createOrder with the workflow", withWorkflow)
	t.Logf("createOrder: %d statements, %d with the workflow", rendered, reread)
	if rendered >= reread {
		t.Errorf("createOrder took %d statements, %d read again", rendered, reread)
	}

	// Each step on both orders: the first answered from the row, the
	// second with the workflow (read again).
	for _, step := range []struct {
		name, field, method, path string
		body                      map[string]any
	}{
		{"updateOrder", `updateOrder(id: $id, input: {customerRef: "R-2", priority: low})`, "PATCH", "", map[string]any{"customer_ref": "R-2", "priority": "low"}},
		{"submit", `transitionOrder(id: $id, transition: "submit")`, "POST", "/transitions", map[string]any{"transition": "submit"}},
		{"allocate", `transitionOrder(id: $id, transition: "allocate")`, "POST", "/transitions", map[string]any{"transition": "allocate"}},
	} {
		restN := rest(step.method, "/v1/orders/"+restID+step.path, step.body)
		vars["id"] = created["id"]
		answer, rendered := mutate(step.field, "", vars)
		same(step.name, answer)
		if rendered != restN {
			t.Errorf("%s took %d statements, %s /v1/orders/{id}%s %d", step.name, rendered, step.method, step.path, restN)
		}
		vars["id"] = withWorkflow["id"]
		answer, reread := mutate(step.field, " workflow { id }", vars)
		delete(answer, "workflow")
		same(step.name+" with the workflow", answer)
		t.Logf("%s: %d statements, %d with the workflow", step.name, rendered, reread)
		if rendered >= reread {
			t.Errorf("%s took %d statements, %d read again", step.name, rendered, reread)
		}
	}
	for _, id := range []any{created["id"], withWorkflow["id"]} {
		o := read(id)
		if o["status"] != "allocated" {
			t.Fatalf("status %v", o["status"])
		}
		for _, l := range o["lines"].([]any) {
			if l := l.(map[string]any); l["allocatedQuantity"] != l["quantity"] {
				t.Errorf("line %v: allocated %v of %v", l["id"], l["allocatedQuantity"], l["quantity"])
			}
		}
	}
}
