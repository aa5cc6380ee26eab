package view

import (
	"context"

	"logistics/ent"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

type TrackingJSON struct {
	ID             resourceid.ID `json:"id"`
	OrderID        resourceid.ID `json:"order_id"`
	TrackingNumber string        `json:"tracking_number"`
	Carrier        string        `json:"carrier"`
	Status         string        `json:"status"`
	Hub            *HubRefJSON   `json:"hub"`
	Location       string        `json:"location"`
	Description    string        `json:"description"`
	OccurredAt     string        `json:"occurred_at"`
	Revision       int           `json:"revision"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
}

func RenderTracking(t *ent.TrackingEntry) TrackingJSON {
	row := TrackingOf(t)
	return trackingRowJSON(&row, nil, new(stamps))
}

// trackingRowJSON is the representation of entry t; its hub, when it has
// one, is written to hub (a new one when nil) and embedded.
func trackingRowJSON(t *Tracking, hub *HubRefJSON, st *stamps) TrackingJSON {
	out := TrackingJSON{
		ID: t.ID, OrderID: t.OrderID, TrackingNumber: t.TrackingNumber, Carrier: t.Carrier, Status: t.Status.String(),
		Location: t.Location, Description: t.Description, OccurredAt: st.ts(t.OccurredAt),
		Revision: t.Revision, CreatedAt: st.ts(t.CreatedAt), UpdatedAt: st.ts(t.UpdatedAt),
	}
	if t.HubID != "" {
		if hub == nil {
			hub = new(HubRefJSON)
		}
		*hub = HubRefJSON{ID: t.HubID, Code: t.HubCode}
		out.Hub = hub
	}
	return out
}

func LoadTracking(ctx context.Context, id resourceid.ID) (*ent.TrackingEntry, error) {
	t, err := ent.FromContext(ctx).TrackingEntry.Query().Where(trackingentry.ID(id)).WithHub(HubRef).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("tracking entry %s not found", id)
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return t, nil
}
