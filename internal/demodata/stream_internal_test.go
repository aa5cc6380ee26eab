package demodata

import (
	"context"
	"path/filepath"
	"testing"

	"logistics/ent"
	"logistics/internal/database"
	"logistics/internal/workflowdef"
)

// watched is the loader, watched for how many rows it holds at once.
type watched struct {
	*loader
	peak int
}

func (w *watched) held() int {
	n := 0
	for _, t := range []*rows{w.hubs, w.parts, w.items, w.orders, w.lines, w.reservations, w.entries, w.events} {
		n += len(t.args) / len(t.cols)
	}
	return n
}

func (w *watched) line(l *ent.OrderLine) { w.loader.line(l); w.peak = max(w.peak, w.held()) }
func (w *watched) tracking(e *ent.TrackingEntry) {
	w.loader.tracking(e)
	w.peak = max(w.peak, w.held())
}
func (w *watched) event(e *ent.OrderEvent) { w.loader.event(e); w.peak = max(w.peak, w.held()) }
func (w *watched) reservation(r *ent.Reservation) {
	w.loader.reservation(r)
	w.peak = max(w.peak, w.held())
}

// TestLoadHoldsABatchOfOrders: the loader holds the rows of one batch of
// orders at most (about 11 rows an order), whatever the scale; at scale 0.1
// (5,000 orders, 55,000 rows of theirs) a loader that kept the orders'
// children to the end would hold them all.
func TestLoadHoldsABatchOfOrders(t *testing.T) {
	ctx := context.Background()
	db, err := database.Open(ctx, filepath.Join(t.TempDir(), "load.db"), database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	d := workflowdef.Fulfilment()
	wf := db.Client.Workflow.Create().SetKey(workflowdef.FulfilmentKey).SetName("Fulfilment").SetVersion(1).SetBuiltIn(true).
		SetStates(d.States).SetInitialState(d.InitialState).SetTransitions(d.Transitions).SaveX(ctx)
	var c counter
	held := generate(0.1, 0, nil, &c)
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	w := &watched{loader: newLoader(ctx, tx, db.Dialect, wf.ID)}
	generate(0.1, 0, held, w)
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
	if limit := 15 * batch; w.peak > limit || w.peak < batch {
		t.Errorf("the loader held up to %d rows at once; want at least one batch and at most %d (the rows of one batch of orders)", w.peak, limit)
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM order_lines").Scan(&n); err != nil || n != c.OrderLines {
		t.Errorf("order lines written: %d, %v; generated %d", n, err, c.OrderLines)
	}
}
