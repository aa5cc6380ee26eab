package service_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/item"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/reservation"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/service"
	"logistics/internal/workflowdef"
)

// fixture is a hub with parts and stock, for the service tests.
type fixture struct {
	srv   *apptest.Server
	svc   *service.Service
	ctx   context.Context
	hub   *ent.Hub
	other *ent.Hub
	parts []*ent.Part
}

func ptr[T any](v T) *T { return &v }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := apptest.New(t)
	f := &fixture{srv: s, svc: s.App.Service, ctx: s.Ctx(environment.Production)}
	var err error
	if f.hub, err = f.svc.CreateHub(f.ctx, ent.CreateHubInput{Code: "AMS1", Name: "Amsterdam", Country: "NL"}); err != nil {
		t.Fatal(err)
	}
	if f.other, err = f.svc.CreateHub(f.ctx, ent.CreateHubInput{Code: "RTM2", Name: "Rotterdam", Country: "NL"}); err != nil {
		t.Fatal(err)
	}
	for _, sku := range []string{"BOLT-M8", "NUT-M8"} {
		p, err := f.svc.CreatePart(f.ctx, ent.CreatePartInput{Sku: sku, PartName: sku + " part"})
		if err != nil {
			t.Fatal(err)
		}
		f.parts = append(f.parts, p)
	}
	return f
}

func (f *fixture) stock(t *testing.T, p *ent.Part, h *ent.Hub, qty string, status item.Status, expires *time.Time) *ent.Item {
	t.Helper()
	it, err := f.svc.CreateItem(f.ctx, ent.CreateItemInput{PartID: p.ID, HubID: h.ID, Quantity: ptr(decimal.MustParse(qty)), Status: &status, ExpiresAt: expires})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func (f *fixture) order(t *testing.T, wf string, lines ...service.NewLine) *ent.Order {
	t.Helper()
	o, err := f.svc.CreateOrder(f.ctx, ent.CreateOrderInput{HubID: f.hub.ID}, lines, wf)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (f *fixture) move(t *testing.T, id resourceid.ID, tr string, opts ...service.TransitionOptions) *ent.Order {
	t.Helper()
	var o service.TransitionOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	out, err := f.svc.TransitionOrder(f.ctx, id, tr, o)
	if err != nil {
		t.Fatalf("%s: %v", tr, err)
	}
	return out
}

func (f *fixture) item(t *testing.T, id resourceid.ID) *ent.Item {
	t.Helper()
	it, err := f.client().Item.Get(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func (f *fixture) client() *ent.Client { return ent.FromContext(f.ctx) }

func (f *fixture) lines(t *testing.T, id resourceid.ID) []*ent.OrderLine {
	t.Helper()
	ls, err := f.client().OrderLine.Query().Where(orderline.OrderID(id)).Order(orderline.ByPartID()).All(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

func wantCode(t *testing.T, err error, status int, code string) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want a %d %s", err, status, code)
	}
	if ae.Kind.Status() != status || ae.Code != code {
		t.Fatalf("got %d %s (%v), want %d %s", ae.Kind.Status(), ae.Code, ae, status, code)
	}
	return ae
}

func TestFulfilmentHappyPath(t *testing.T) {
	f := newFixture(t)
	soon, later := time.Now().Add(24*time.Hour).UTC(), time.Now().Add(48*time.Hour).UTC()
	late := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, &later)
	early := f.stock(t, f.parts[0], f.hub, "4", item.StatusAvailable, &soon) // FEFO: used first
	f.stock(t, f.parts[0], f.hub, "100", item.StatusQuarantined, nil)        // never reserved
	f.stock(t, f.parts[0], f.other, "100", item.StatusAvailable, nil)        // another hub
	nut := f.stock(t, f.parts[1], f.hub, "2.5", item.StatusAvailable, nil)
	o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.MustParse("6.5")}, service.NewLine{PartID: f.parts[1].ID, Quantity: decimal.MustParse("2.5")})
	if o.Status != "draft" {
		t.Fatalf("new order is %s, want draft", o.Status)
	}
	f.move(t, o.ID, "submit")
	o = f.move(t, o.ID, "allocate")
	if o.Status != "allocated" {
		t.Fatalf("status %s", o.Status)
	}
	if got := f.item(t, early.ID).ReservedQuantity; got != decimal.MustParse("4") {
		t.Errorf("FEFO item reserved %s, want 4", got)
	}
	if got := f.item(t, late.ID).ReservedQuantity; got != decimal.MustParse("2.5") {
		t.Errorf("later item reserved %s, want 2.5", got)
	}
	if got := f.item(t, nut.ID).ReservedQuantity; got != decimal.MustParse("2.5") {
		t.Errorf("nut reserved %s, want 2.5", got)
	}
	for _, l := range f.lines(t, o.ID) {
		if l.AllocatedQuantity != l.Quantity {
			t.Errorf("line %s allocated %s of %s", l.ID, l.AllocatedQuantity, l.Quantity)
		}
	}
	f.move(t, o.ID, "start_picking")
	_, err := f.svc.TransitionOrder(f.ctx, o.ID, "ship", service.TransitionOptions{})
	ae := wantCode(t, err, 422, "validation_failed")
	if len(ae.Fields) != 2 {
		t.Errorf("ship without tracking: %v", ae.Fields)
	}
	o = f.move(t, o.ID, "ship", service.TransitionOptions{TrackingNumber: "1Z999", Carrier: "UPS"})
	if o.Status != "shipped" {
		t.Fatalf("status %s", o.Status)
	}
	it := f.item(t, early.ID)
	if it.Quantity != 0 || it.ReservedQuantity != 0 {
		t.Errorf("FEFO item after ship: %s/%s", it.Quantity, it.ReservedQuantity)
	}
	it = f.item(t, late.ID)
	if it.Quantity != decimal.MustParse("7.5") || it.ReservedQuantity != 0 {
		t.Errorf("later item after ship: %s/%s, want 7.5/0", it.Quantity, it.ReservedQuantity)
	}
	for _, l := range f.lines(t, o.ID) {
		if l.ShippedQuantity != l.Quantity || l.AllocatedQuantity != 0 {
			t.Errorf("line %s shipped %s allocated %s", l.ID, l.ShippedQuantity, l.AllocatedQuantity)
		}
	}
	if n := f.client().Reservation.Query().Where(reservation.OrderID(o.ID)).CountX(f.ctx); n != 0 {
		t.Errorf("%d reservations left after ship", n)
	}
	te := f.client().TrackingEntry.Query().Where(trackingentry.OrderID(o.ID)).OnlyX(f.ctx)
	if te.Status != trackingentry.StatusLabelCreated || te.TrackingNumber != "1Z999" || te.Carrier != "UPS" {
		t.Errorf("tracking entry %+v", te)
	}
	// A delivered scan delivers; closing is a plain transition.
	if _, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{OrderID: o.ID, TrackingNumber: "1Z999", Carrier: "UPS", Status: trackingentry.StatusDelivered}); err != nil {
		t.Fatal(err)
	}
	o = f.move(t, o.ID, "close")
	if o.Status != "closed" {
		t.Fatalf("status %s", o.Status)
	}
	evs := f.client().OrderEvent.Query().Where(orderevent.OrderID(o.ID)).Order(orderevent.ByOccurredAt(), orderevent.ByID()).AllX(f.ctx)
	var names []string
	for _, e := range evs {
		names = append(names, e.FromState+">"+e.Transition+">"+e.ToState)
		if e.Actor != "system" {
			t.Errorf("actor %q", e.Actor)
		}
	}
	want := []string{"draft>submit>open", "open>allocate>allocated", "allocated>start_picking>picking", "picking>ship>shipped", "shipped>deliver>delivered", "delivered>close>closed"}
	if !slices.Equal(names, want) {
		t.Errorf("events %v\nwant %v", names, want)
	}
	if n := f.client().Event.Query().Where(event.Type("order.transitioned"), event.SubjectID(string(o.ID))).CountX(f.ctx); n != 6 {
		t.Errorf("%d domain events, want 6", n)
	}
	_, err = f.svc.TransitionOrder(f.ctx, o.ID, "cancel", service.TransitionOptions{})
	ae = wantCode(t, err, 409, "illegal_transition")
	if a := ae.Details["allowed_transitions"].([]string); len(a) != 0 {
		t.Errorf("closed allows %v", a)
	}
}

func TestIllegalTransitions(t *testing.T) {
	f := newFixture(t)
	o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(1)})
	for _, tr := range []string{"allocate", "ship", "deliver", "close", "nonsense"} {
		_, err := f.svc.TransitionOrder(f.ctx, o.ID, tr, service.TransitionOptions{TrackingNumber: "x", Carrier: "y"})
		ae := wantCode(t, err, 409, "illegal_transition")
		if a := ae.Details["allowed_transitions"].([]string); !slices.Equal(a, []string{"submit", "cancel"}) {
			t.Errorf("%s: allowed %v", tr, a)
		}
	}
	_, err := f.svc.TransitionOrder(f.ctx, "ord_01JAAAAAAAAAAAAAAAAAAAAAAA", "submit", service.TransitionOptions{})
	wantCode(t, err, 404, "not_found")
	_, err = f.svc.TransitionOrder(f.ctx, o.ID, "submit", service.TransitionOptions{Revision: ptr(o.Revision + 5)})
	wantCode(t, err, 412, "precondition_failed")
	o2 := f.move(t, o.ID, "submit", service.TransitionOptions{Revision: ptr(o.Revision)})
	if o2.Revision != o.Revision+1 {
		t.Errorf("revision %d after %d", o2.Revision, o.Revision)
	}
}

func TestInsufficientStockChangesNothing(t *testing.T) {
	f := newFixture(t)
	bolt := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	nut := f.stock(t, f.parts[1], f.hub, "1", item.StatusAvailable, nil)
	o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(5)}, service.NewLine{PartID: f.parts[1].ID, Quantity: decimal.FromInt(3)})
	f.move(t, o.ID, "submit")
	_, err := f.svc.TransitionOrder(f.ctx, o.ID, "allocate", service.TransitionOptions{})
	ae := wantCode(t, err, 409, "insufficient_stock")
	sh := ae.Details["shortages"].([]service.Shortage)
	if len(sh) != 1 || sh[0].SKU != "NUT-M8" || sh[0].Requested != decimal.FromInt(3) || sh[0].Available != decimal.FromInt(1) {
		t.Errorf("shortages %+v", sh)
	}
	if it := f.item(t, bolt.ID); it.ReservedQuantity != 0 {
		t.Errorf("bolt reserved %s after a failed allocation", it.ReservedQuantity)
	}
	if it := f.item(t, nut.ID); it.ReservedQuantity != 0 {
		t.Errorf("nut reserved %s after a failed allocation", it.ReservedQuantity)
	}
	cur := f.client().Order.GetX(f.ctx, o.ID)
	if cur.Status != "open" {
		t.Errorf("status %s after a failed allocation", cur.Status)
	}
	if n := f.client().OrderEvent.Query().Where(orderevent.OrderID(o.ID), orderevent.Transition("allocate")).CountX(f.ctx); n != 0 {
		t.Errorf("%d allocate events after a failure", n)
	}
	for _, l := range f.lines(t, o.ID) {
		if l.AllocatedQuantity != 0 {
			t.Errorf("line allocated %s", l.AllocatedQuantity)
		}
	}
}

func TestCancelReleases(t *testing.T) {
	f := newFixture(t)
	it := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	for _, path := range [][]string{{"submit", "allocate"}, {"submit", "allocate", "start_picking"}, {"submit"}, {}} {
		o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(7)})
		for _, tr := range path {
			f.move(t, o.ID, tr)
		}
		o = f.move(t, o.ID, "cancel")
		if o.Status != "cancelled" {
			t.Fatalf("%v: status %s", path, o.Status)
		}
		if got := f.item(t, it.ID); got.ReservedQuantity != 0 || got.Quantity != decimal.FromInt(10) {
			t.Errorf("%v: item %s/%s after cancel", path, got.Quantity, got.ReservedQuantity)
		}
		for _, l := range f.lines(t, o.ID) {
			if l.AllocatedQuantity != 0 {
				t.Errorf("%v: line allocated %s", path, l.AllocatedQuantity)
			}
		}
	}
}

func TestDeliveredTrackingNeverMovesBackwards(t *testing.T) {
	f := newFixture(t)
	f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	o := f.order(t, "", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(1)})
	for _, tr := range []string{"submit", "allocate", "start_picking"} {
		f.move(t, o.ID, tr)
	}
	// delivered before shipping is ignored
	if _, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{OrderID: o.ID, TrackingNumber: "T", Carrier: "DHL", Status: trackingentry.StatusDelivered}); err != nil {
		t.Fatal(err)
	}
	if s := f.client().Order.GetX(f.ctx, o.ID).Status; s != "picking" {
		t.Fatalf("delivered scan moved a picking order to %s", s)
	}
	f.move(t, o.ID, "ship", service.TransitionOptions{TrackingNumber: "T", Carrier: "DHL"})
	// a late scan older than the shipment does not deliver
	old := time.Now().Add(-time.Hour).UTC()
	if _, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{OrderID: o.ID, TrackingNumber: "T", Carrier: "DHL", Status: trackingentry.StatusDelivered, OccurredAt: &old}); err != nil {
		t.Fatal(err)
	}
	if s := f.client().Order.GetX(f.ctx, o.ID).Status; s != "shipped" {
		t.Fatalf("an older delivered scan moved the order to %s", s)
	}
	now := time.Now().Add(time.Second).UTC()
	if _, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{OrderID: o.ID, TrackingNumber: "T", Carrier: "DHL", Status: trackingentry.StatusDelivered, OccurredAt: &now}); err != nil {
		t.Fatal(err)
	}
	if s := f.client().Order.GetX(f.ctx, o.ID).Status; s != "delivered" {
		t.Fatalf("a delivered scan left the order %s", s)
	}
	// late in-transit and delivered scans change nothing afterwards
	for _, st := range []trackingentry.Status{trackingentry.StatusInTransit, trackingentry.StatusDelivered} {
		if _, err := f.svc.CreateTrackingEntry(f.ctx, ent.CreateTrackingEntryInput{OrderID: o.ID, TrackingNumber: "T", Carrier: "DHL", Status: st, OccurredAt: &old}); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.client().Order.GetX(f.ctx, o.ID).Status; s != "delivered" {
		t.Fatalf("late scans moved the order to %s", s)
	}
	if n := f.client().OrderEvent.Query().Where(orderevent.OrderID(o.ID), orderevent.Transition("deliver")).CountX(f.ctx); n != 1 {
		t.Errorf("%d deliver events", n)
	}
}

func TestCustomWorkflowVersions(t *testing.T) {
	f := newFixture(t)
	f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	// every problem at once, as field errors
	_, err := f.svc.CreateWorkflow(f.ctx, "Bad Key", "", workflowdef.Definition{
		States:       []string{"new", "new", "done", "orphan"},
		InitialState: "start",
		Transitions:  []workflowdef.Transition{{Name: "go", From: []string{"nowhere"}, To: "done", Effect: "teleport"}},
	})
	ae := wantCode(t, err, 422, "validation_failed")
	fields := map[string]bool{}
	for _, fe := range ae.Fields {
		fields[fe.Field] = true
	}
	for _, want := range []string{"key", "states[1]", "initial_state", "transitions[0].from", "transitions[0].effect"} {
		if !fields[want] {
			t.Errorf("no problem reported on %s: %v", want, ae.Fields)
		}
	}
	_, err = f.svc.CreateWorkflow(f.ctx, workflowdef.FulfilmentKey, "Mine", workflowdef.Fulfilment())
	wantCode(t, err, 409, "built_in_workflow")

	v1def := workflowdef.Definition{
		States:       []string{"new", "reserved", "gone", "dropped"},
		InitialState: "new",
		Transitions: []workflowdef.Transition{
			{Name: "reserve", From: []string{"new"}, To: "reserved", Effect: workflowdef.EffectReserve},
			{Name: "ship", From: []string{"reserved"}, To: "gone", Effect: workflowdef.EffectShip},
			{Name: "drop", From: []string{"new", "reserved"}, To: "dropped", Effect: workflowdef.EffectRelease},
		},
	}
	v1, err := f.svc.CreateWorkflow(f.ctx, "express", "Express", v1def)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version != 1 || !v1.Latest {
		t.Fatalf("v1: version %d latest %v", v1.Version, v1.Latest)
	}
	started := f.order(t, "express", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(2)})
	v2def := workflowdef.Definition{
		States:       []string{"new", "gone"},
		InitialState: "new",
		Transitions:  []workflowdef.Transition{{Name: "ship_now", From: []string{"new"}, To: "gone", Effect: workflowdef.EffectShip}},
	}
	v2, err := f.svc.CreateWorkflow(f.ctx, "express", "Express", v2def)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != 2 || !v2.Latest {
		t.Fatalf("v2: version %d latest %v", v2.Version, v2.Latest)
	}
	old := f.client().Workflow.GetX(f.ctx, v1.ID)
	if old.Latest || old.Version != 1 || len(old.Transitions) != 3 {
		t.Errorf("v1 changed: %+v", old)
	}
	// the order started on v1 keeps v1's transitions
	if _, err := f.svc.TransitionOrder(f.ctx, started.ID, "ship_now", service.TransitionOptions{TrackingNumber: "x", Carrier: "y"}); err == nil {
		t.Error("a v2 transition applied to a v1 order")
	}
	o := f.move(t, started.ID, "reserve")
	if o.WorkflowID != v1.ID || o.Status != "reserved" {
		t.Errorf("v1 order: workflow %s status %s", o.WorkflowID, o.Status)
	}
	o = f.move(t, started.ID, "drop")
	if o.Status != "dropped" {
		t.Errorf("status %s", o.Status)
	}
	// a new order gets v2, whose ship reserves and consumes in one step
	fresh := f.order(t, "express", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(3)})
	if fresh.WorkflowID != v2.ID {
		t.Errorf("new order on %s, want v2 %s", fresh.WorkflowID, v2.ID)
	}
	f.move(t, fresh.ID, "ship_now", service.TransitionOptions{TrackingNumber: "x", Carrier: "y"})
	its := f.client().Item.Query().Where(item.PartID(f.parts[0].ID)).AllX(f.ctx)
	if len(its) != 1 || its[0].Quantity != decimal.FromInt(7) || its[0].ReservedQuantity != 0 {
		t.Errorf("stock after v2 ship: %+v", its)
	}
}

func TestDeleteOrderReleasesStock(t *testing.T) {
	f := newFixture(t)
	it := f.stock(t, f.parts[0], f.hub, "5", item.StatusAvailable, nil)
	if _, err := f.svc.CreateWorkflow(f.ctx, "hold", "Hold stock", workflowdef.Definition{
		States: []string{"new", "held"}, InitialState: "new",
		Transitions: []workflowdef.Transition{{Name: "hold", From: []string{"new"}, To: "held", Effect: workflowdef.EffectReserve}},
	}); err != nil {
		t.Fatal(err)
	}
	o := f.order(t, "hold", service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(4)})
	f.move(t, o.ID, "hold")
	if got := f.item(t, it.ID).ReservedQuantity; got != decimal.FromInt(4) {
		t.Fatalf("reserved %s", got)
	}
	if err := f.svc.DeleteOrder(f.ctx, o.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.item(t, it.ID).ReservedQuantity; got != 0 {
		t.Errorf("reserved %s after deleting the order", got)
	}
	if n := f.client().Reservation.Query().CountX(f.ctx); n != 0 {
		t.Errorf("%d reservations left", n)
	}
}
