package demodata_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/trackingentry"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
)

// BenchmarkLoad loads the demo dataset into a fresh database.
//
//	go test -run '^$' -bench Load -benchtime 1x ./internal/demodata              (scale 0.1)
//	DEMO_SCALE=1 go test -run '^$' -bench Load -benchtime 1x ./internal/demodata
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := apptest.New(b)
		ctx := s.Ctx(environment.Sandbox)
		b.StartTimer()
		if _, err := demodata.Load(ctx, s.Env(environment.Sandbox).DB, benchScale()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDeterministic loads scale 0.01 into two fresh databases and compares
// every row that matters, ids included; then checks the data is consistent.
func TestDeterministic(t *testing.T) {
	dump := func() (string, demodata.Counts) {
		s := apptest.New(t)
		ctx := s.Ctx(environment.Sandbox)
		db := s.Env(environment.Sandbox).DB
		c := db.Client
		counts, err := demodata.Load(ctx, db, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := demodata.Load(ctx, db, 0.01); !errors.Is(err, demodata.ErrNotEmpty) {
			t.Errorf("second load: %v, want ErrNotEmpty", err)
		}
		if db.Dialect == dialect.Postgres {
			// Loaded and analyzed: the planner has statistics for every
			// table the load filled (autovacuum may be off).
			var n int
			if err := db.SQL.QueryRowContext(ctx, `SELECT count(DISTINCT tablename) FROM pg_stats
WHERE schemaname = current_schema() AND tablename IN ('hubs', 'parts', 'items', 'orders', 'order_lines', 'tracking_entries')`).Scan(&n); err != nil || n != 6 {
				t.Errorf("tables with planner statistics after the load: %d, %v; want 6", n, err)
			}
		}
		var b strings.Builder
		for _, h := range c.Hub.Query().Order(hub.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, h.ID, h.Code, h.Name, h.City, *h.Latitude, *h.Longitude, h.Timezone)
		}
		for _, p := range c.Part.Query().Order(part.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, p.ID, p.Sku, p.PartName, p.Unit, p.UnitWeightKg)
		}
		for _, it := range c.Item.Query().Order(item.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, it.ID, it.PartID, it.HubID, it.Quantity, it.ReservedQuantity, it.Lot, it.Serial, it.Status, it.CreatedAt.UTC())
		}
		for _, o := range c.Order.Query().Order(order.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, o.ID, o.Number, o.Status, o.HubID, o.CustomerRef, o.ShipToName, o.CreatedAt.UTC(), o.UpdatedAt.UTC())
		}
		for _, l := range c.OrderLine.Query().Order(orderline.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, l.ID, l.OrderID, l.PartID, l.Quantity, l.AllocatedQuantity, l.ShippedQuantity)
		}
		for _, e := range c.TrackingEntry.Query().Order(trackingentry.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, e.ID, e.OrderID, e.TrackingNumber, e.Carrier, e.Status, e.OccurredAt.UTC())
		}
		for _, e := range c.OrderEvent.Query().Order(orderevent.ByID()).AllX(ctx) {
			fmt.Fprintln(&b, e.ID, e.OrderID, e.Transition, e.FromState, e.ToState, e.OccurredAt.UTC())
		}
		checkConsistent(t, ctx, c)
		return b.String(), counts
	}
	a, ca := dump()
	b, cb := dump()
	if ca != cb {
		t.Fatalf("counts differ: %+v vs %+v", ca, cb)
	}
	if a != b {
		t.Fatal("two loads of scale 0.01 differ")
	}
	if ca.Hubs < 5 || ca.Items != 2000 || ca.Orders != 500 || ca.OrderLines < 1000 || ca.TrackingEntries < 500 {
		t.Errorf("counts %+v", ca)
	}
	if other := demodata.Generate(0.02); other.Counts().Items == ca.Items {
		t.Error("scale 0.02 has as many items as 0.01")
	}
}

func checkConsistent(t *testing.T, ctx context.Context, c *ent.Client) {
	t.Helper()
	for _, code := range []string{"AMS1", "RTM2"} {
		if !c.Hub.Query().Where(hub.Code(code)).ExistX(ctx) {
			t.Errorf("no hub %s", code)
		}
	}
	if n := c.Part.Query().Where(part.PartNameContains("bolt")).CountX(ctx); n == 0 {
		t.Error("no part with bolt in its name")
	}
	states := map[string]bool{}
	for _, o := range c.Order.Query().AllX(ctx) {
		states[o.Status] = true
	}
	for _, s := range workflowdef.Fulfilment().States {
		if !states[s] {
			t.Errorf("no order in state %s", s)
		}
	}
	held := map[resourceid.ID]decimal.Decimal{}
	byLine := map[resourceid.ID]decimal.Decimal{}
	for _, r := range c.Reservation.Query().AllX(ctx) {
		held[r.ItemID] += r.Quantity
		byLine[r.OrderLineID] += r.Quantity
	}
	for _, it := range c.Item.Query().AllX(ctx) {
		if it.ReservedQuantity > it.Quantity || it.ReservedQuantity != held[it.ID] {
			t.Errorf("item %s: %s of %s reserved, reservations hold %s", it.ID, it.ReservedQuantity, it.Quantity, held[it.ID])
		}
	}
	for _, o := range c.Order.Query().WithLines().AllX(ctx) {
		for _, l := range o.Edges.Lines {
			reserved := o.Status == "allocated" || o.Status == "picking"
			if reserved != (l.AllocatedQuantity == l.Quantity) || l.AllocatedQuantity != byLine[l.ID] {
				t.Fatalf("order %s (%s): line allocated %s of %s, reservations %s", o.ID, o.Status, l.AllocatedQuantity, l.Quantity, byLine[l.ID])
			}
		}
		nt := c.TrackingEntry.Query().Where(trackingentry.OrderID(o.ID)).CountX(ctx)
		if shipped := o.Status == "shipped" || o.Status == "delivered" || o.Status == "closed"; shipped != (nt > 0) {
			t.Fatalf("order %s (%s) has %d tracking entries", o.ID, o.Status, nt)
		}
	}
}

// TestFirstStartFillsSandbox: a first start fills the empty sandbox (never
// production) unless demo data is switched off, as apptest does by default.
func TestFirstStartFillsSandbox(t *testing.T) {
	s := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.NoDemoData = false; c.DemoScale = 0.005 }})
	sb, prod := s.Ctx(environment.Sandbox), s.Ctx(environment.Production)
	if n := s.Env(environment.Sandbox).DB.Client.Order.Query().CountX(sb); n != 250 {
		t.Errorf("sandbox has %d orders, want 250", n)
	}
	if n := s.Env(environment.Production).DB.Client.Hub.Query().CountX(prod); n != 0 {
		t.Errorf("production has %d hubs", n)
	}
	off := apptest.New(t)
	if n := off.Env(environment.Sandbox).DB.Client.Hub.Query().CountX(off.Ctx(environment.Sandbox)); n != 0 {
		t.Errorf("with demo data off the sandbox has %d hubs", n)
	}
}

// TestInstancesStartingTogether: several instances opening one empty
// sandbox at once — one fills it, the others start normally.
func TestInstancesStartingTogether(t *testing.T) {
	s := apptest.New(t)
	cfg := s.App.Config
	cfg.NoDemoData, cfg.DemoScale = false, 0.005
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			a, err := app.Open(context.Background(), cfg, s.App.Log, app.Options{})
			if err == nil {
				err = a.Close()
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := s.Env(environment.Sandbox).DB.Client.Order.Query().CountX(s.Ctx(environment.Sandbox)); n != 250 {
		t.Errorf("sandbox has %d orders, want 250", n)
	}
}
