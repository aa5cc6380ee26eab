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

type trackingJSON struct {
	ID             resourceid.ID `json:"id"`
	OrderID        resourceid.ID `json:"order_id"`
	TrackingNumber string        `json:"tracking_number"`
	Carrier        string        `json:"carrier"`
	Status         string        `json:"status"`
	Hub            *hubRefJSON   `json:"hub"`
	Location       string        `json:"location"`
	Description    string        `json:"description"`
	OccurredAt     string        `json:"occurred_at"`
	Revision       int           `json:"revision"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
}

func renderTracking(t *ent.TrackingEntry) trackingJSON {
	row := view.TrackingOf(t)
	return trackingRowJSON(&row, nil, new(stamps))
}

// trackingRowJSON is the representation of entry t; its hub, when it has
// one, is written to hub (a new one when nil) and embedded.
func trackingRowJSON(t *view.Tracking, hub *hubRefJSON, st *stamps) trackingJSON {
	out := trackingJSON{
		ID: t.ID, OrderID: t.OrderID, TrackingNumber: t.TrackingNumber, Carrier: t.Carrier, Status: t.Status.String(),
		Location: t.Location, Description: t.Description, OccurredAt: st.ts(t.OccurredAt),
		Revision: t.Revision, CreatedAt: st.ts(t.CreatedAt), UpdatedAt: st.ts(t.UpdatedAt),
	}
	if t.HubID != "" {
		if hub == nil {
			hub = new(hubRefJSON)
		}
		*hub = hubRefJSON{ID: t.HubID, Code: t.HubCode}
		out.Hub = hub
	}
	return out
}

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

func loadTracking(ctx context.Context, id resourceid.ID) (*ent.TrackingEntry, error) {
	t, err := ent.FromContext(ctx).TrackingEntry.Query().Where(trackingentry.ID(id)).WithHub(hubRef).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("tracking entry %s not found", id)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return t, nil
}

// trackingEntries is the adapter of /v1/tracking-entries.
func (d Deps) trackingEntries() *resource[*ent.TrackingEntry, ent.TrackingEntryWhereInput, trackingJSON, trackingIn] {
	return &resource[*ent.TrackingEntry, ent.TrackingEntryWhereInput, trackingJSON, trackingIn]{
		what: "tracking entry", prefix: resourceid.TrackingEntry, table: filter.TrackingEntryTable, parse: filter.TrackingEntries,
		page: func(r *http.Request, where *ent.TrackingEntryWhereInput, p page) ([]*ent.TrackingEntry, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).TrackingEntry.Query().WithHub(hubRef).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithTrackingEntryOrder(orderBy(p.sort, newTrackingEntryOrder)), ent.WithTrackingEntryFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.TrackingEntryEdge) *ent.TrackingEntry { return e.Node })
		},
		load:   loadTracking,
		render: plain(renderTracking),
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

// ---- workflows (read-only here) ----

type workflowJSON struct {
	ID           resourceid.ID            `json:"id"`
	Key          string                   `json:"key"`
	Name         string                   `json:"name"`
	Version      int                      `json:"version"`
	Latest       bool                     `json:"latest"`
	BuiltIn      bool                     `json:"built_in"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
	CreatedAt    string                   `json:"created_at"`
	UpdatedAt    string                   `json:"updated_at"`
}

func renderWorkflow(wf *ent.Workflow) workflowJSON {
	out := workflowJSON{
		ID: wf.ID, Key: wf.Key, Name: wf.Name, Version: wf.Version, Latest: wf.Latest, BuiltIn: wf.BuiltIn,
		States: wf.States, InitialState: wf.InitialState, Transitions: wf.Transitions,
		CreatedAt: ts(wf.CreatedAt), UpdatedAt: ts(wf.UpdatedAt),
	}
	if out.States == nil {
		out.States = []string{}
	}
	if out.Transitions == nil {
		out.Transitions = []workflowdef.Transition{}
	}
	return out
}

// workflows is the adapter of /v1/workflows: versions are created, never
// changed, and carry no revision.
func (d Deps) workflows() *resource[*ent.Workflow, ent.WorkflowWhereInput, workflowJSON, workflowIn] {
	return &resource[*ent.Workflow, ent.WorkflowWhereInput, workflowJSON, workflowIn]{
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
		render: plain(renderWorkflow),
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
