package rest

import (
	"context"

	"logistics/ent"
	"logistics/internal/orderread"
	"logistics/internal/resourceid"
)

// What an order embeds (its hub, workflow, lines with their parts' sku and
// name, and its newest tracking entries) is read for a whole page at once:
// the statement count does not grow with the page.
//
// A page eager-loads the hub (id and code) through ent; the newest tracking
// entries come from orderread.Page, the workflow and the lines from
// embedOrders.

// embedOrders fills each order's workflow (from the process-wide cache of
// workflow versions, which never change) and lines, each with its part's id,
// sku and name.
func (d Deps) embedOrders(ctx context.Context, orders ...*ent.Order) error {
	if len(orders) == 0 {
		return nil
	}
	ids := make([]resourceid.ID, len(orders))
	byID := make(map[resourceid.ID]*ent.Order, len(orders))
	for i, o := range orders {
		ids[i], byID[o.ID] = o.ID, o
		o.Edges.Lines = []*ent.OrderLine{}
	}
	if err := d.embedWorkflows(ctx, orders...); err != nil {
		return err
	}
	return orderread.Lines(ctx, ids, byID, orderread.ByID, orderread.WithTimes)
}

// embedWorkflows fills each order's workflow from the process-wide cache of
// workflow versions (which never change).
func (d Deps) embedWorkflows(ctx context.Context, orders ...*ent.Order) error {
	wfIDs := make([]resourceid.ID, 0, 1)
	for _, o := range orders {
		wfIDs = append(wfIDs, o.WorkflowID)
	}
	wfs, err := d.Service.Workflows(ctx, wfIDs)
	if err != nil {
		return err
	}
	for _, o := range orders {
		o.Edges.Workflow = wfs[o.WorkflowID]
	}
	return nil
}
