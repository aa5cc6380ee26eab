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
	out := trackingJSON{
		ID: t.ID, OrderID: t.OrderID, TrackingNumber: t.TrackingNumber, Carrier: t.Carrier, Status: t.Status.String(),
		Location: t.Location, Description: t.Description, OccurredAt: ts(t.OccurredAt),
		Revision: t.Revision, CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.UpdatedAt),
	}
	if t.HubID != nil {
		out.Hub = &hubRefJSON{ID: *t.HubID}
		if h := t.Edges.Hub; h != nil {
			out.Hub.Code = h.Code
		}
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

func handleListTracking(d Deps) http.Handler {
	return list(d, filter.TrackingEntryTable, filter.TrackingEntries, func(r *http.Request, where *ent.TrackingEntryWhereInput, p page) (listJSON, error) {
		orders, err := sortOrders(p.sort, func(dir ent.OrderDirection, f *ent.TrackingEntryOrderField) *ent.TrackingEntryOrder {
			return &ent.TrackingEntryOrder{Direction: dir, Field: f}
		})
		if err != nil {
			return listJSON{}, err
		}
		ctx := r.Context()
		conn, err := ent.FromContext(ctx).TrackingEntry.Query().WithHub(hubRef).
			Paginate(ctx, p.after, &p.first, nil, nil, ent.WithTrackingEntryOrder(orders), ent.WithTrackingEntryFilter(where.Filter))
		if err != nil {
			return listJSON{}, apperr.From(err)
		}
		return pageOf(p, conn.Edges, conn.PageInfo, func(e *ent.TrackingEntryEdge) any { return renderTracking(e.Node) }), nil
	})
}

func handleGetTracking(d Deps) http.Handler {
	return getHandler(d, resourceid.TrackingEntry, "tracking entry",
		func(ctx context.Context, id resourceid.ID) (*ent.TrackingEntry, error) { return loadTracking(ctx, id) },
		func(v *ent.TrackingEntry) int { return v.Revision },
		func(v *ent.TrackingEntry) any { return renderTracking(v) })
}

func handleCreateTracking(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in trackingIn
		if _, err := d.decode(r, &in); err != nil {
			d.fail(w, r, err)
			return
		}
		ctx := r.Context()
		var hubID *resourceid.ID
		if in.Hub != nil || in.HubID != nil {
			var err error
			if hubID, err = resolveHub(ctx, in.HubID, in.Hub, "hub"); err != nil {
				d.fail(w, r, err)
				return
			}
		}
		if in.OrderID == nil {
			d.fail(w, r, apperr.Validation(apperr.FieldError{Field: "order_id", Message: "is required"}))
			return
		}
		t, err := d.Service.CreateTrackingEntry(ctx, ent.CreateTrackingEntryInput{
			OrderID: *in.OrderID, TrackingNumber: deref(in.TrackingNumber), Carrier: deref(in.Carrier), Status: deref(in.Status),
			HubID: hubID, Location: in.Location, Description: in.Description, OccurredAt: in.OccurredAt,
		})
		if err == nil {
			t, err = loadTracking(ctx, t.ID)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+string(t.ID))
		writeResource(w, http.StatusCreated, etag(t.Revision), renderTracking(t))
	})
}

func handleUpdateTracking(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, resourceid.TrackingEntry, "tracking entry")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		rev, err := ifMatch(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		var in trackingIn
		nulls, err := d.decode(r, &in)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ctx := r.Context()
		u := ent.UpdateTrackingEntryInput{
			OrderID: in.OrderID, TrackingNumber: in.TrackingNumber, Carrier: in.Carrier, Status: in.Status,
			Location: in.Location, Description: in.Description, OccurredAt: in.OccurredAt,
			ClearHub: nulls["hub"] || nulls["hub_id"],
		}
		if in.Hub != nil || in.HubID != nil {
			if u.HubID, err = resolveHub(ctx, in.HubID, in.Hub, "hub"); err != nil {
				d.fail(w, r, err)
				return
			}
		}
		t, err := d.Service.UpdateTrackingEntry(ctx, id, u, rev)
		if err == nil {
			t, err = loadTracking(ctx, t.ID)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		writeResource(w, http.StatusOK, etag(t.Revision), renderTracking(t))
	})
}

func handleDeleteTracking(d Deps) http.Handler {
	return deleteHandler(d, resourceid.TrackingEntry, "tracking entry", func(r *http.Request, id resourceid.ID) error {
		return d.Service.DeleteTrackingEntry(r.Context(), id)
	})
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

func handleListWorkflows(d Deps) http.Handler {
	return list(d, filter.WorkflowTable, filter.Workflows, func(r *http.Request, where *ent.WorkflowWhereInput, p page) (listJSON, error) {
		orders, err := sortOrders(p.sort, func(dir ent.OrderDirection, f *ent.WorkflowOrderField) *ent.WorkflowOrder {
			return &ent.WorkflowOrder{Direction: dir, Field: f}
		})
		if err != nil {
			return listJSON{}, err
		}
		ctx := r.Context()
		conn, err := ent.FromContext(ctx).Workflow.Query().
			Paginate(ctx, p.after, &p.first, nil, nil, ent.WithWorkflowOrder(orders), ent.WithWorkflowFilter(where.Filter))
		if err != nil {
			return listJSON{}, apperr.From(err)
		}
		return pageOf(p, conn.Edges, conn.PageInfo, func(e *ent.WorkflowEdge) any { return renderWorkflow(e.Node) }), nil
	})
}

func handleGetWorkflow(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, resourceid.Workflow, "workflow")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		wf, err := ent.FromContext(r.Context()).Workflow.Query().Where(workflow.ID(id)).Only(r.Context())
		if ent.IsNotFound(err) {
			err = apperr.NotFound("workflow %s not found", id)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		writeResource(w, http.StatusOK, "", renderWorkflow(wf))
	})
}
