package view

import (
	"context"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// What an order embeds (its hub, workflow, lines with their parts' sku and
// name, and its newest tracking entries) is read for a whole page at once:
// the statement count does not grow with the page.
//
// A page reads the hub's code in the page's statement (internal/view);
// the newest tracking entries and the lines come from PageWith
// (one round trip for both on PostgreSQL), the workflow from
// EmbedWorkflows.

// EmbedWorkflows fills each order's workflow from the process-wide cache of
// workflow versions (which never change).
func EmbedWorkflows(ctx context.Context, orders ...*ent.Order) error {
	wfIDs := make([]resourceid.ID, 0, 1)
	for _, o := range orders {
		wfIDs = append(wfIDs, o.WorkflowID)
	}
	wfs, err := Workflows(ctx, wfIDs)
	if err != nil {
		return err
	}
	for _, o := range orders {
		o.Edges.Workflow = wfs[o.WorkflowID]
	}
	return nil
}
