package rest

import (
	"context"
	"net/http"
	"time"

	"logistics/ent"
	"logistics/ent/trackingentry"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/view"
	"logistics/internal/workflowdef"
)

// trackingIn is the body of POST and PATCH /v1/tracking-entries; the hub,
// optional, by code (hub) or id (hub_id); null clears it on PATCH.
type trackingIn struct {
	OrderID        *resourceid.ID        `json:"order_id"`
	TrackingNumber *string               `json:"tracking_number"`
	Carrier        *string               `json:"carrier"`
	Status         *trackingentry.Status `json:"status"`
	Hub            *string               `json:"hub"`
	HubID          *resourceid.ID        `json:"hub_id"`
	Location       *string               `json:"location"`
	Description    *string               `json:"description"`
	OccurredAt     *time.Time            `json:"occurred_at"`
}

// trackingEntries is the adapter of /v1/tracking-entries.
func (d Deps) trackingEntries() *resource[*ent.TrackingEntry, ent.TrackingEntryWhereInput, view.TrackingJSON, trackingIn] {
	return &resource[*ent.TrackingEntry, ent.TrackingEntryWhereInput, view.TrackingJSON, trackingIn]{
		what: "tracking entry", prefix: resourceid.TrackingEntry, table: filter.TrackingEntryTable, parse: filter.TrackingEntries,
		page: func(r *http.Request, where *ent.TrackingEntryWhereInput, p page) ([]*ent.TrackingEntry, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).TrackingEntry.Query().WithHub(view.HubRef).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithTrackingEntryOrder(orderBy(p.sort, newTrackingEntryOrder)), ent.WithTrackingEntryFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.TrackingEntryEdge) *ent.TrackingEntry { return e.Node })
		},
		load:   view.LoadTracking,
		render: plain(view.RenderTracking),
		key:    func(t *ent.TrackingEntry) (resourceid.ID, int) { return t.ID, t.Revision },
		reload: true,
		create: func(r *http.Request, in *trackingIn) (*ent.TrackingEntry, error) {
			ctx := r.Context()
			var hubID *resourceid.ID
			if in.Hub != nil || in.HubID != nil {
				var err error
				if hubID, err = resolveHub(ctx, in.HubID, in.Hub, "hub"); err != nil {
					return nil, err
				}
			}
			if in.OrderID == nil {
				return nil, apperr.Validation(apperr.FieldError{Field: "order_id", Message: "is required"})
			}
			return d.Service.CreateTrackingEntry(ctx, ent.CreateTrackingEntryInput{
				OrderID: *in.OrderID, TrackingNumber: deref(in.TrackingNumber), Carrier: deref(in.Carrier), Status: deref(in.Status),
				HubID: hubID, Location: in.Location, Description: in.Description, OccurredAt: in.OccurredAt,
			})
		},
		update: func(r *http.Request, id resourceid.ID, in *trackingIn, nulls map[string]bool, rev *int) (*ent.TrackingEntry, error) {
			u := ent.UpdateTrackingEntryInput{
				OrderID: in.OrderID, TrackingNumber: in.TrackingNumber, Carrier: in.Carrier, Status: in.Status,
				Location: in.Location, Description: in.Description, OccurredAt: in.OccurredAt,
				ClearHub: nulls["hub"] || nulls["hub_id"],
			}
			if in.Hub != nil || in.HubID != nil {
				var err error
				if u.HubID, err = resolveHub(r.Context(), in.HubID, in.Hub, "hub"); err != nil {
					return nil, err
				}
			}
			return d.Service.UpdateTrackingEntry(r.Context(), id, u, rev)
		},
		remove: d.Service.DeleteTrackingEntry,
	}
}

func newTrackingEntryOrder(dir ent.OrderDirection, f *ent.TrackingEntryOrderField) *ent.TrackingEntryOrder {
	return &ent.TrackingEntryOrder{Direction: dir, Field: f}
}

// workflows is the adapter of /v1/workflows: versions are created, never
// changed, and carry no revision.
func (d Deps) workflows() *resource[*ent.Workflow, ent.WorkflowWhereInput, view.WorkflowJSON, workflowIn] {
	return &resource[*ent.Workflow, ent.WorkflowWhereInput, view.WorkflowJSON, workflowIn]{
		what: "workflow", prefix: resourceid.Workflow, table: filter.WorkflowTable, parse: filter.Workflows,
		page: func(r *http.Request, where *ent.WorkflowWhereInput, p page) ([]*ent.Workflow, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).Workflow.Query().
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithWorkflowOrder(orderBy(p.sort, newWorkflowOrder)), ent.WithWorkflowFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.WorkflowEdge) *ent.Workflow { return e.Node })
		},
		load: func(ctx context.Context, id resourceid.ID) (*ent.Workflow, error) {
			return ent.FromContext(ctx).Workflow.Query().Where(workflow.ID(id)).Only(ctx)
		},
		render: plain(view.RenderWorkflow),
		key:    func(wf *ent.Workflow) (resourceid.ID, int) { return wf.ID, 0 },
		// POST /v1/workflows: version 1 of a new key, or the next version of
		// an existing one (201 either way).
		create: func(r *http.Request, in *workflowIn) (*ent.Workflow, error) {
			return d.Service.CreateWorkflow(r.Context(), in.Key, deref(in.Name), workflowdef.Definition{
				States: in.States, InitialState: in.InitialState, Transitions: in.Transitions,
			})
		},
	}
}

func newWorkflowOrder(dir ent.OrderDirection, f *ent.WorkflowOrderField) *ent.WorkflowOrder {
	return &ent.WorkflowOrder{Direction: dir, Field: f}
}
