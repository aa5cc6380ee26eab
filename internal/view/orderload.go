package view

import (
	"context"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// One order is read in three hand-scanned statements (internal/view):
// the order with its hub's code, its newest tracking entries, its lines with
// their parts — one round trip on PostgreSQL; the workflow comes from the
// process-wide cache (Workflows).

// LoadOrder reads order id as RenderOrder needs it: its hub's code, its
// workflow, its lines with their parts, its newest tracking entries.
func LoadOrder(ctx context.Context, id resourceid.ID) (*ent.Order, error) {
	o, err := OrderWith(ctx, id, OrderRead{
		Tracking: true, Lines: true, LineOrder: ByID, LineColumns: AllLineColumns,
	})
	if err == nil && o == nil {
		return nil, apperr.NotFound("order %s not found", id)
	}
	if err == nil {
		err = EmbedWorkflows(ctx, o)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return o, nil
}
