package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
	"logistics/internal/service"
)

// TestItemStatusWithReservations: an item with units reserved keeps its
// status available — REST and GraphQL refuse damaged and quarantined with
// 409 stock_reserved naming the orders that hold the units, and change
// nothing — until those orders are cancelled.
func TestItemStatusWithReservations(t *testing.T) {
	s := apptest.New(t)
	env := environment.Sandbox
	ctx := s.Ctx(env)
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
	it, err := svc.CreateItem(ctx, ent.CreateItemInput{PartID: p.ID, HubID: h.ID, Quantity: &q})
	if err != nil {
		t.Fatal(err)
	}
	var orders []string
	for _, n := range []int64{2, 3} {
		o, err := svc.CreateOrder(ctx, ent.CreateOrderInput{HubID: h.ID}, []service.NewLine{{PartID: p.ID, Quantity: decimal.FromInt(n)}}, "")
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, string(o.ID))
		for _, tr := range []string{"submit", "allocate"} {
			if r := s.Do(t, "POST", s.SandboxURL+"/v1/orders/"+string(o.ID)+"/transitions", map[string]any{"transition": tr}, nil); r.StatusCode != 200 {
				t.Fatalf("%s: %d %s", tr, r.StatusCode, r.Body)
			}
		}
	}
	slices.Sort(orders)
	itemURL := s.SandboxURL + "/v1/items/" + string(it.ID)
	state := func() string {
		r := s.Do(t, "GET", itemURL, nil, nil)
		var m map[string]any
		r.JSON(t, &m)
		return fmt.Sprint(m["status"], " ", m["reserved_quantity"])
	}
	if got := state(); got != "available 5" {
		t.Fatalf("before: %s", got)
	}
	for _, status := range []string{"damaged", "quarantined"} {
		r := s.Do(t, "PATCH", itemURL, map[string]any{"status": status}, nil)
		var pr struct {
			Code   string   `json:"code"`
			Detail string   `json:"detail"`
			Orders []string `json:"orders"`
		}
		r.JSON(t, &pr)
		if r.StatusCode != http.StatusConflict || pr.Code != "stock_reserved" || !slices.Equal(pr.Orders, orders) ||
			!strings.Contains(pr.Detail, orders[0]) || !strings.Contains(pr.Detail, orders[1]) {
			t.Errorf("REST status %s: %d %s (want 409 stock_reserved naming %v)", status, r.StatusCode, r.Body, orders)
		}
		g := s.GraphQL(t, env, `mutation($id: ID!, $s: ItemStatus!) { updateItem(id: $id, input: {status: $s}) { id status } }`,
			map[string]any{"id": it.ID, "s": status})
		var named []string
		if len(g.Errors) == 1 {
			b, _ := json.Marshal(g.Errors[0].Extensions["orders"])
			_ = json.Unmarshal(b, &named)
		}
		if len(g.Errors) != 1 || g.Errors[0].Code() != "CONFLICT" || g.Errors[0].Extensions["reason"] != "stock_reserved" || !slices.Equal(named, orders) {
			t.Errorf("GraphQL status %s: %+v (want CONFLICT stock_reserved naming %v)", status, g.Errors, orders)
		}
		if got := state(); got != "available 5" {
			t.Errorf("after refusing %s: %s", status, got)
		}
	}
	// Other changes to the item still go through.
	if r := s.Do(t, "PATCH", itemURL, map[string]any{"lot": "L1", "status": "available"}, nil); r.StatusCode != 200 {
		t.Errorf("PATCH lot: %d %s", r.StatusCode, r.Body)
	}
	// Cancelled orders release their units: the status may change.
	for _, o := range orders {
		if r := s.Do(t, "POST", s.SandboxURL+"/v1/orders/"+o+"/transitions", map[string]any{"transition": "cancel"}, nil); r.StatusCode != 200 {
			t.Fatalf("cancel: %d %s", r.StatusCode, r.Body)
		}
	}
	s.MustGraphQL(t, env, `mutation($id: ID!) { updateItem(id: $id, input: {status: quarantined}) { id } }`, map[string]any{"id": it.ID}, nil)
	if r := s.Do(t, "PATCH", itemURL, map[string]any{"status": "damaged"}, nil); r.StatusCode != 200 {
		t.Errorf("PATCH damaged after the cancellations: %d %s", r.StatusCode, r.Body)
	}
	if got := state(); got != "damaged 0" {
		t.Errorf("after: %s", got)
	}
}
