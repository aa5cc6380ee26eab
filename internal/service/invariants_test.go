package service_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/orderevent"
	"logistics/ent/trackingentry"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/service"
	"logistics/internal/workflowdef"
)

// TestLineCannotChangeOrders: GraphQL updateOrderLine used to take orderID
// and moved a draft order's line into an allocated one, which then held a
// line without a reservation. The field is gone from the input (the column
// is immutable), so the request is refused and nothing moves.
func TestLineCannotChangeOrders(t *testing.T) {
	f := newFixture(t)
	f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	allocated := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(2)})
	f.move(t, allocated.ID, "submit")
	f.move(t, allocated.ID, "allocate")
	draft := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(3)})
	line := f.lines(t, draft.ID)[0]

	r := f.srv.GraphQL(t, environment.Production, `mutation($id: ID!, $to: ID!) { updateOrderLine(id: $id, input: {orderID: $to}) { id order { id } } }`,
		map[string]any{"id": line.ID, "to": allocated.ID})
	if len(r.Errors) == 0 {
		t.Fatalf("updateOrderLine with orderID answered %s", r.Data)
	}
	// REST has no order_id on a line either: an unknown field is refused or
	// ignored, never applied.
	resp := f.srv.Do(t, http.MethodPatch, f.srv.URL+"/v1/order-lines/"+string(line.ID), map[string]any{"order_id": allocated.ID}, nil)
	if resp.StatusCode >= 500 {
		t.Fatalf("REST: %d %s", resp.StatusCode, resp.Body)
	}
	if got := f.lines(t, draft.ID); len(got) != 1 || got[0].ID != line.ID {
		t.Fatalf("draft order's lines %+v", got)
	}
	if got := f.lines(t, allocated.ID); len(got) != 1 {
		t.Fatalf("allocated order has %d lines", len(got))
	}
}

// TestNoWayBackToInitialWithStock: a custom workflow may lead back to its
// initial state (where lines are editable) only through a transition that
// releases stock; and a version stored before that rule existed is released
// on the way in all the same, so a line can never be edited while reserved.
func TestNoWayBackToInitialWithStock(t *testing.T) {
	f := newFixture(t)
	it := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	def := func(effect workflowdef.Effect) workflowdef.Definition {
		return workflowdef.Definition{
			States: []string{"new", "held"}, InitialState: "new",
			Transitions: []workflowdef.Transition{
				{Name: "hold", From: []string{"new"}, To: "held", Effect: workflowdef.EffectReserve},
				{Name: "unhold", From: []string{"held"}, To: "new", Effect: effect},
			},
		}
	}
	for _, e := range []workflowdef.Effect{workflowdef.EffectNone, "", workflowdef.EffectReserve, workflowdef.EffectShip} {
		_, err := f.svc.CreateWorkflow(f.ctx, "hold", "Hold", def(e))
		ae := wantCode(t, err, 422, "validation_failed")
		if len(ae.Fields) != 1 || ae.Fields[0].Field != "transitions[1].effect" {
			t.Fatalf("effect %q: fields %+v", e, ae.Fields)
		}
	}
	if _, err := f.svc.CreateWorkflow(f.ctx, "hold", "Hold", def(workflowdef.EffectRelease)); err != nil {
		t.Fatal(err)
	}
	// A version stored before the rule: written past the validation.
	if _, err := f.client().Workflow.Create().SetKey("legacy").SetName("Legacy").SetVersion(1).
		SetStates([]string{"new", "held"}).SetInitialState("new").SetTransitions(def(workflowdef.EffectNone).Transitions).Save(f.ctx); err != nil {
		t.Fatal(err)
	}
	for _, wf := range []string{"hold", "legacy"} {
		o := f.order(t, wf, service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(4)})
		f.move(t, o.ID, "hold")
		if got := f.item(t, it.ID).ReservedQuantity; got != decimal.FromInt(4) {
			t.Fatalf("%s: reserved %s after hold", wf, got)
		}
		o = f.move(t, o.ID, "unhold")
		if o.Status != "new" {
			t.Fatalf("%s: status %s", wf, o.Status)
		}
		if got := f.item(t, it.ID).ReservedQuantity; got != 0 {
			t.Fatalf("%s: %s still reserved in the initial state", wf, got)
		}
		if n := f.client().Reservation.Query().CountX(f.ctx); n != 0 {
			t.Fatalf("%s: %d reservations in the initial state", wf, n)
		}
		l := f.lines(t, o.ID)[0]
		if l.AllocatedQuantity != 0 {
			t.Fatalf("%s: line allocated %s in the initial state", wf, l.AllocatedQuantity)
		}
		// Editable again, and consistent: a new hold reserves the new quantity.
		if _, err := f.svc.UpdateOrderLine(f.ctx, l.ID, ent.UpdateOrderLineInput{Quantity: ptr(decimal.FromInt(6))}, nil); err != nil {
			t.Fatalf("%s: edit in the initial state: %v", wf, err)
		}
		f.move(t, o.ID, "hold")
		if got := f.item(t, it.ID).ReservedQuantity; got != decimal.FromInt(6) {
			t.Fatalf("%s: reserved %s after the second hold, want 6", wf, got)
		}
		f.move(t, o.ID, "unhold")
	}
}

// TestLineEditRacesReservation: a line edited while a transition out of the
// initial state reserves stock for the same order. The edit is left
// uncommitted in a transaction of the test's own while the transition runs;
// the transition must wait for it and reserve the edited quantity (before,
// on PostgreSQL, it read the old quantity, and the order was allocated with
// a line short of its reservation). On SQLite the one write lock serialises
// them anyway.
func TestLineEditRacesReservation(t *testing.T) {
	f := newFixture(t)
	it := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	if _, err := f.svc.CreateWorkflow(f.ctx, "hold", "Hold", workflowdef.Definition{
		States: []string{"new", "held"}, InitialState: "new",
		Transitions: []workflowdef.Transition{{Name: "hold", From: []string{"new"}, To: "held", Effect: workflowdef.EffectReserve}},
	}); err != nil {
		t.Fatal(err)
	}
	o := f.order(t, "hold", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(2)})
	line := f.lines(t, o.ID)[0]

	tx, err := f.client().Tx(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	txCtx := ent.NewContext(ent.NewTxContext(eventlog.Begin(f.ctx, tx), tx), tx.Client())
	if _, err := f.svc.UpdateOrderLine(txCtx, line.ID, ent.UpdateOrderLineInput{Quantity: ptr(decimal.FromInt(6))}, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.svc.TransitionOrder(f.ctx, o.ID, "hold", service.TransitionOptions{})
		done <- err
	}()
	// Commit once the transition waits for a lock held by the edit.
	if apptest.Postgres() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			var rows sql.Rows
			if err := f.client().Driver().Query(context.Background(),
				`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`, []any{}, &rows); err != nil {
				t.Fatal(err)
			}
			var n int
			rows.Next()
			err := rows.Scan(&n)
			rows.Close()
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			select {
			case err := <-done:
				t.Fatalf("the transition finished beside an uncommitted edit of its order's line: %v", err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatal("the transition never waited for the edit")
			}
			time.Sleep(20 * time.Millisecond)
		}
	} else {
		time.Sleep(300 * time.Millisecond)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hold: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the transition did not finish")
	}
	l := f.lines(t, o.ID)[0]
	if l.Quantity != decimal.FromInt(6) || l.AllocatedQuantity != l.Quantity {
		t.Fatalf("line quantity %s, allocated %s: an allocated order's line is not fully reserved", l.Quantity, l.AllocatedQuantity)
	}
	if got := f.item(t, it.ID).ReservedQuantity; got != decimal.FromInt(6) {
		t.Fatalf("reserved %s, want 6", got)
	}
}

// TestTrackingEditedToDeliveredDelivers: correcting a tracking entry to
// delivered moves its shipped order to delivered, as creating a delivered
// entry does, through both interfaces' one service call.
func TestTrackingEditedToDeliveredDelivers(t *testing.T) {
	f := newFixture(t)
	f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(1)})
	for _, tr := range []string{"submit", "allocate", "start_picking"} {
		f.move(t, o.ID, tr)
	}
	f.move(t, o.ID, "ship", service.TransitionOptions{TrackingNumber: "1Z", Carrier: "UPS"})
	te, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{
		OrderID: o.ID, TrackingNumber: "1Z", Carrier: "UPS", Status: trackingentry.StatusOutForDelivery, OccurredAt: ptr(time.Now().UTC()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.client().Order.GetX(f.ctx, o.ID).Status; got != "shipped" {
		t.Fatalf("status %s after out_for_delivery", got)
	}
	delivered := trackingentry.StatusDelivered
	if _, err := f.svc.UpdateTrackingEntry(f.ctx, te.ID, ent.UpdateTrackingEntryInput{Status: &delivered}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.client().Order.GetX(f.ctx, o.ID).Status; got != "delivered" {
		t.Fatalf("status %s after the entry was edited to delivered, want delivered", got)
	}
	ev := f.client().OrderEvent.Query().Where(orderevent.OrderID(o.ID), orderevent.Transition("deliver")).CountX(f.ctx)
	if ev != 1 {
		t.Fatalf("%d deliver events", ev)
	}
	// Editing it again changes nothing more (delivered has no deliver).
	desc := "left at the door"
	if _, err := f.svc.UpdateTrackingEntry(f.ctx, te.ID, ent.UpdateTrackingEntryInput{Status: &delivered, Description: &desc}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.client().Order.GetX(f.ctx, o.ID).Status; got != "delivered" {
		t.Fatalf("status %s", got)
	}
}
