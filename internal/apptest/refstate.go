package apptest

import (
	"context"
	"testing"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// OrderWriteState is what a refused write of an order, order line or
// tracking entry must leave as it was: the number of orders, lines and
// tracking entries, and the revisions of one line and one entry.
func OrderWriteState(t testing.TB, c *ent.Client, line, entry string) [5]int {
	t.Helper()
	ctx := context.Background()
	orders, err1 := c.Order.Query().Count(ctx)
	lines, err2 := c.OrderLine.Query().Count(ctx)
	entries, err3 := c.TrackingEntry.Query().Count(ctx)
	l, err4 := c.OrderLine.Get(ctx, resourceid.ID(line))
	e, err5 := c.TrackingEntry.Get(ctx, resourceid.ID(entry))
	for _, err := range []error{err1, err2, err3, err4, err5} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return [5]int{orders, lines, entries, l.Revision, e.Revision}
}
