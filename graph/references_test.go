package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
)

// TestReferenceErrors: a mutation naming a hub, part or order that does not
// exist is BAD_USER_INPUT with every missing reference in
// extensions.fields, and the operation writes nothing, also when another
// mutation of the same operation succeeded before or after it. The valid
// write leaves references to the foreign keys (internal/service/refs.go).
func TestReferenceErrors(t *testing.T) {
	const (
		noHub   = "hub_01JD3K0000000000000000000A"
		noPart  = "prt_01JD3K0000000000000000000A"
		noPart2 = "prt_01JD3K0000000000000000000B"
		noOrder = "ord_01JD3K0000000000000000000A"
	)
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	hub := f.hub("AMS1", "Amsterdam", "NL")
	p1 := f.part("P-1", "Washer")
	p2 := f.part("P-2", "Bolt")
	order := f.order(hub, p1, "1")
	trk := f.tracking(order, "T1", "in_transit")
	var o struct {
		Node struct{ Lines []struct{ ID string } }
	}
	srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { ... on Order { lines { id } } } }`, map[string]any{"id": order}, &o)
	line := o.Node.Lines[0].ID

	c := srv.Env(prod).DB.Client
	state := func() [5]int { return apptest.OrderWriteState(t, c, line, trk) }
	type fe struct{ Field, Message string }
	// Ids go into the documents as literals ($name → "id").
	ids := strings.NewReplacer("$hub", `"`+hub+`"`, "$p1", `"`+p1+`"`, "$p2", `"`+p2+`"`, "$order", `"`+order+`"`,
		"$line", `"`+line+`"`, "$trk", `"`+trk+`"`, "$noHub", `"`+noHub+`"`, "$noPart2", `"`+noPart2+`"`,
		"$noPart", `"`+noPart+`"`, "$noOrder", `"`+noOrder+`"`)
	for _, tc := range []struct {
		name, selection string
		want            []fe
	}{
		{"order: unknown hub", `createOrder(input: {hubID: $noHub}, lines: [{partID: $p1, quantity: 1}]) { id }`,
			[]fe{{"hubID", noHub + " does not exist"}}},
		{"order: unknown part among its lines", `createOrder(input: {hubID: $hub}, lines: [{partID: $p1, quantity: 1}, {partID: $noPart, quantity: 2}, {partID: $p2, quantity: 1}]) { id }`,
			[]fe{{"lines[1].partID", "part " + noPart + " does not exist"}}},
		{"order: unknown hub and parts at once", `createOrder(input: {hubID: $noHub}, lines: [{partID: $noPart, quantity: 1}, {partID: $p1, quantity: 1}, {partID: $noPart2, quantity: 1}]) { id }`,
			[]fe{{"hubID", noHub + " does not exist"}, {"lines[0].partID", "part " + noPart + " does not exist"}, {"lines[2].partID", "part " + noPart2 + " does not exist"}}},
		{"order: unknown part with another problem", `createOrder(input: {hubID: $hub}, lines: [{partID: $noPart, quantity: 1}, {partID: $p1, quantity: 0}]) { id }`,
			[]fe{{"lines[1].quantity", "must be greater than 0"}, {"lines[0].partID", "part " + noPart + " does not exist"}}},
		{"tracking: unknown order", `createTrackingEntry(input: {orderID: $noOrder, trackingNumber: "T", carrier: "C", status: in_transit}) { id }`,
			[]fe{{"orderID", noOrder + " does not exist"}}},
		{"tracking: unknown hub", `createTrackingEntry(input: {orderID: $order, hubID: $noHub, trackingNumber: "T", carrier: "C", status: in_transit}) { id }`,
			[]fe{{"hubID", noHub + " does not exist"}}},
		{"tracking update: unknown hub", `updateTrackingEntry(id: $trk, input: {hubID: $noHub}) { id }`,
			[]fe{{"hubID", noHub + " does not exist"}}},
		{"line: unknown part", `createOrderLine(input: {orderID: $order, partID: $noPart, quantity: 1}) { id }`,
			[]fe{{"lines[0].partID", "part " + noPart + " does not exist"}}},
		{"line update: unknown part", `updateOrderLine(id: $line, input: {partID: $noPart}) { id }`,
			[]fe{{"partID", noPart + " does not exist"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, doc := range []string{
				`mutation { ` + tc.selection + ` }`,
				// With a valid write before and after it in the same
				// operation: everything is rolled back, one error.
				`mutation { a: createTrackingEntry(input: {orderID: $order, trackingNumber: "A", carrier: "C", status: in_transit}) { id } b: ` +
					tc.selection + ` c: createOrder(input: {hubID: $hub}, lines: [{partID: $p2, quantity: 1}]) { id } }`,
			} {
				before := state()
				r := srv.GraphQL(t, prod, ids.Replace(doc), nil)
				if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" || r.Errors[0].Extensions["reason"] != "validation_failed" {
					t.Fatalf("errors %+v\ndata %s", r.Errors, r.Data)
				}
				var got []fe
				b, _ := json.Marshal(r.Errors[0].Extensions["fields"])
				if err := json.Unmarshal(b, &got); err != nil || len(got) != len(tc.want) {
					t.Fatalf("fields %s, want %v", b, tc.want)
				}
				for i := range tc.want {
					if got[i] != tc.want[i] {
						t.Errorf("field %d = %v, want %v", i, got[i], tc.want[i])
					}
				}
				if after := state(); after != before {
					t.Errorf("orders, lines, tracking entries, line and entry revisions: %v, before %v", after, before)
				}
			}
		})
	}
}

// TestFailedWritesDoNotWaitForConnections: on PostgreSQL a one-field
// mutation whose write fails on a missing reference names it from a fresh
// read outside its transaction (internal/service/refs.go). That read must
// not hold the transaction's connection while it takes another: with two
// connections, concurrent failures would each hold one and wait for a
// second forever. Each gets its 422 and nothing is written.
func TestFailedWritesDoNotWaitForConnections(t *testing.T) {
	const noHub = "hub_01JD3K0000000000000000000A"
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	order := f.order(f.hub("AMS1", "Amsterdam", "NL"), f.part("P-1", "Washer"), "1")
	db := srv.Env(prod).DB
	db.SQL.SetMaxOpenConns(2)
	written := func() [2]int {
		ctx := context.Background()
		return [2]int{db.Client.TrackingEntry.Query().CountX(ctx), db.Client.Event.Query().CountX(ctx)}
	}
	before := written()

	body, _ := json.Marshal(map[string]any{
		"query":     `mutation($o: ID!, $h: ID!) { createTrackingEntry(input: {orderID: $o, hubID: $h, trackingNumber: "T", carrier: "C", status: in_transit}) { id } }`,
		"variables": map[string]any{"o": order, "h": noHub},
	})
	// Not a timing target: a deadlock never ends, a correct run takes
	// milliseconds. The client's timeout ends a waiting request (its
	// context) so that the test fails instead of hanging.
	client := &http.Client{Timeout: 30 * time.Second}
	const n = 8
	errs := make(chan string, n)
	for range n {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, srv.Base(prod)+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+srv.Keys[prod])
			resp, err := client.Do(req)
			if err != nil {
				errs <- fmt.Sprintf("no answer (waiting for database connections?): %v", err)
				return
			}
			defer resp.Body.Close()
			var r apptest.GQLResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" {
				errs <- fmt.Sprintf("status %d, errors %+v (%v)", resp.StatusCode, r.Errors, err)
				return
			}
			b, _ := json.Marshal(r.Errors[0].Extensions["fields"])
			if want := `[{"field":"hubID","message":"` + noHub + ` does not exist"}]`; string(b) != want {
				errs <- fmt.Sprintf("fields %s, want %s", b, want)
				return
			}
			errs <- ""
		}()
	}
	for range n {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	if after := written(); after != before {
		t.Errorf("tracking entries and events %v, before %v", after, before)
	}
}
