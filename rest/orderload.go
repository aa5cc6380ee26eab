package rest

import (
	"context"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// One order is read in three hand-scanned statements (internal/view):
// the order with its hub's code, its newest tracking entries, its lines with
// their parts — one round trip on PostgreSQL; the workflow comes from the
// service's cache.

// loadOrder reads order id as renderOrder needs it: its hub's code, its
// workflow, its lines with their parts, its newest tracking entries.
func (d Deps) loadOrder(ctx context.Context, id resourceid.ID) (*ent.Order, error) {
	o, err := view.OrderWith(ctx, id, view.OrderRead{
		Tracking: true, Lines: true, LineOrder: view.ByID, LineColumns: view.AllLineColumns,
	})
	if err == nil && o == nil {
		return nil, apperr.NotFound("order %s not found", id)
	}
	if err == nil {
		err = d.embedWorkflows(ctx, o)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return o, nil
}
