package orderread_test

import (
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/orderread"
	"logistics/internal/resourceid"
)

// Lines and Page for no orders read nothing: their statement texts end in
// an IN list, and "IN ()" is an error on PostgreSQL.
func TestNoOrdersReadNothing(t *testing.T) {
	counter := &apptest.StatementCounter{}
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	ctx := srv.Ctx(environment.Production)
	counter.Reset()
	for _, order := range []orderread.LineOrder{orderread.ByID, orderread.AsIndexed} {
		if err := orderread.Lines(ctx, nil, map[resourceid.ID]*ent.Order{}, order, orderread.WithTimes); err != nil {
			t.Fatalf("Lines of no orders: %v", err)
		}
	}
	if err := orderread.Page(ctx, nil); err != nil {
		t.Fatalf("Page of no orders: %v", err)
	}
	if n := counter.Count(); n != 0 {
		t.Fatalf("%d statements for no orders: %v", n, counter.Statements())
	}
}
