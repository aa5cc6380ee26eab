package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"time"

	"logistics/internal/decimal"
	"logistics/internal/workflowdef"
)

// The floor of REST's document (interface floor-rest): the page reads W1–W3
// and W3s answered with the document REST answers — every field of every
// item, part or order, its lines and newest tracking entries, as GET
// /v1/<resource> writes them — by hand-written SQL that reads those
// columns, the representations the write floors' events carry
// (floorevents.go: written apart from the service's renderers, so the
// parity test compares two implementations) and encoding/json. The floor
// of the named fields (floor.go) answers the fields the workload names,
// which GraphQL asks for. floor-rest says what a plain endpoint pays for
// REST's whole document; it turned out slower than the service's REST, so
// it is reported beside REST, not used as its yardstick.
// TestRESTFloorMatchesREST checks
// that the two documents are equal.

// restFloorHandlers adds /floor/rest/w1, /floor/rest/w2 and /floor/rest/w3
// (?status=shipped for W3s).
func (f *floor) restFloorHandlers(mux *http.ServeMux) {
	mux.HandleFunc("GET /floor/rest/w1", f.serve(f.restW1))
	mux.HandleFunc("GET /floor/rest/w2", f.serve(f.restW2))
	mux.HandleFunc("GET /floor/rest/w3", func(w http.ResponseWriter, r *http.Request) {
		status := r.URL.Query().Get("status")
		if status == "" {
			status = "open"
		}
		f.serve(func(ctx context.Context, limit int) (any, int, string, error) { return f.restW3(ctx, status, limit) })(w, r)
	})
}

// timePtr is a nullable time as a representation holds it.
func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

type restFloorItem floorItemRep

func (it restFloorItem) key() string { return it.ID }

// restW1 is W1 (floor.w1's statement, with the columns REST's item has).
func (f *floor) restW1(ctx context.Context, limit int) (any, int, string, error) {
	rows, err := f.query(ctx, `SELECT i.id, i.part_id,
  (SELECT p.sku FROM parts p WHERE p.id = i.part_id),
  i.hub_id, (SELECT h.code FROM hubs h WHERE h.id = i.hub_id),
  i.quantity, i.reserved_quantity, i.lot, i.serial, i.status, i.expires_at, i.revision, i.created_at, i.updated_at
FROM items i
WHERE i.quantity > ? AND EXISTS (SELECT 1 FROM hubs h WHERE h.id = i.hub_id AND h.code IN (?, ?))
ORDER BY i.id LIMIT ?`, int64(decimal.FromInt(100)), "AMS1", "RTM2", limit)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	out := make([]restFloorItem, 0, limit)
	for rows.Next() {
		var it restFloorItem
		var exp sql.NullTime
		if err := rows.Scan(&it.ID, &it.Part.ID, &it.Part.SKU, &it.Hub.ID, &it.Hub.Code, &it.Quantity, &it.ReservedQuantity,
			&it.Lot, &it.Serial, &it.Status, &exp, &it.Revision, &it.CreatedAt, &it.UpdatedAt); err != nil {
			return nil, 0, "", err
		}
		it.ExpiresAt = timePtr(exp)
		it.AvailableQuantity = it.Quantity - it.ReservedQuantity
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return trimPage(out, limit)
}

type restPart struct {
	ID           string          `json:"id"`
	SKU          string          `json:"sku"`
	PartName     string          `json:"part_name"`
	Description  string          `json:"description"`
	Unit         string          `json:"unit"`
	UnitWeightKg decimal.Decimal `json:"unit_weight_kg"`
	Hazardous    bool            `json:"hazardous"`
	Revision     int             `json:"revision"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
}

func (p restPart) key() string { return p.ID }

// restW2 is W2 with the columns REST's part has.
func (f *floor) restW2(ctx context.Context, limit int) (any, int, string, error) {
	cond := "lower(part_name) LIKE ?" // as floor.w2
	rows, err := f.query(ctx, `SELECT id, sku, part_name, description, unit, unit_weight_kg, hazardous, revision, created_at, updated_at
FROM parts WHERE `+cond+` ORDER BY id LIMIT ?`, "%bolt%", limit)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	out := make([]restPart, 0, limit)
	for rows.Next() {
		var p restPart
		if err := rows.Scan(&p.ID, &p.SKU, &p.PartName, &p.Description, &p.Unit, &p.UnitWeightKg, &p.Hazardous, &p.Revision, &p.CreatedAt, &p.UpdatedAt); err != nil {
			return nil, 0, "", err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return trimPage(out, limit)
}

type restFloorOrder floorOrderRep

func (o *restFloorOrder) key() string { return o.ID }

// floorWorkflow is what an order's document needs of its workflow; the
// floor keeps each one it has read, as the service keeps its definitions.
type floorWorkflow struct {
	key     string
	version int
	allowed map[string][]string // state → the transitions leaving it, in the definition's order
}

// workflow returns workflow id, reading it on the first use.
func (f *floor) workflow(ctx context.Context, id string) (*floorWorkflow, error) {
	if v, ok := f.workflows.Load(id); ok {
		return v.(*floorWorkflow), nil
	}
	rows, err := f.query(ctx, `SELECT key, version, transitions FROM workflows WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, sql.ErrNoRows
	}
	wf := &floorWorkflow{allowed: map[string][]string{}}
	var transitions []byte
	if err := rows.Scan(&wf.key, &wf.version, &transitions); err != nil {
		return nil, err
	}
	var def workflowdef.Definition
	if err := json.Unmarshal(transitions, &def.Transitions); err != nil {
		return nil, err
	}
	for _, t := range def.Transitions {
		for _, from := range t.From {
			if wf.allowed[from] == nil {
				wf.allowed[from] = def.Allowed(from)
			}
		}
	}
	f.workflows.Store(id, wf)
	return wf, nil
}

// restW3 is W3 (status open) and W3s (shipped) with REST's order document:
// floor.w3's three statements with the columns REST's orders, lines and
// tracking entries have.
func (f *floor) restW3(ctx context.Context, status string, limit int) (any, int, string, error) {
	rows, err := f.query(ctx, `SELECT o.id, o.number, o.status, o.workflow_id, o.hub_id, h.code, o.customer_ref, o.priority,
  o.ship_to_name, o.ship_to_line1, o.ship_to_line2, o.ship_to_city, o.ship_to_postal_code, o.ship_to_country,
  o.due_at, o.revision, o.created_at, o.updated_at
FROM orders o JOIN hubs h ON h.id = o.hub_id
WHERE o.status = ? ORDER BY o.id LIMIT ?`, status, limit)
	if err != nil {
		return nil, 0, "", err
	}
	orders := make([]*restFloorOrder, 0, limit)
	byID := make(map[string]*restFloorOrder, limit)
	for rows.Next() {
		o := &restFloorOrder{Lines: []floorLineRep{}, LatestTracking: []floorTrackingRep{}}
		var due sql.NullTime
		s := &o.ShipTo
		if err := rows.Scan(&o.ID, &o.Number, &o.Status, &o.Workflow.ID, &o.Hub.ID, &o.Hub.Code, &o.CustomerRef, &o.Priority,
			&s.Name, &s.Line1, &s.Line2, &s.City, &s.PostalCode, &s.Country, &due, &o.Revision, &o.CreatedAt, &o.UpdatedAt); err != nil {
			rows.Close()
			return nil, 0, "", err
		}
		o.DueAt = timePtr(due)
		orders = append(orders, o)
		byID[o.ID] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	n := len(orders)
	orders, ids := lookAhead(orders, byID, limit)
	if len(orders) == 0 {
		return orders, n, "", nil
	}
	for _, o := range orders {
		wf, err := f.workflow(ctx, o.Workflow.ID)
		if err != nil {
			return nil, 0, "", err
		}
		o.Workflow.Key, o.Workflow.Version = wf.key, wf.version
		o.AllowedTransitions = wf.allowed[o.Status]
		if o.AllowedTransitions == nil {
			o.AllowedTransitions = []string{}
		}
	}
	in := placeholders(len(ids))

	rows, err = f.query(ctx, `SELECT l.order_id, l.id, l.part_id, p.sku, p.part_name, l.quantity, l.allocated_quantity, l.shipped_quantity,
  l.revision, l.created_at, l.updated_at
FROM order_lines l JOIN parts p ON p.id = l.part_id
WHERE l.order_id IN (`+in+`) ORDER BY l.order_id, l.id`, ids...)
	if err != nil {
		return nil, 0, "", err
	}
	for rows.Next() {
		l := floorLineRep{Part: new(floorPartRef)}
		if err := rows.Scan(&l.OrderID, &l.ID, &l.PartID, &l.Part.SKU, &l.Part.PartName, &l.Quantity, &l.AllocatedQuantity, &l.ShippedQuantity,
			&l.Revision, &l.CreatedAt, &l.UpdatedAt); err != nil {
			rows.Close()
			return nil, 0, "", err
		}
		l.Part.ID = l.PartID
		if o := byID[l.OrderID]; o != nil {
			o.Lines = append(o.Lines, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}

	// The 3 latest entries of each order, as floor.w3 reads them, with the
	// entry's hub.
	rows, err = f.query(ctx, f.latestTracking(`t.order_id, t.id, t.tracking_number, t.carrier, t.status, t.hub_id, (SELECT h.code FROM hubs h WHERE h.id = t.hub_id),
  t.location, t.description, t.occurred_at, t.revision, t.created_at, t.updated_at`, "l.*", in), ids...)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var t floorTrackingRep
		var hubID, hubCode sql.NullString
		if err := rows.Scan(&t.OrderID, &t.ID, &t.TrackingNumber, &t.Carrier, &t.Status, &hubID, &hubCode,
			&t.Location, &t.Description, &t.OccurredAt, &t.Revision, &t.CreatedAt, &t.UpdatedAt); err != nil {
			return nil, 0, "", err
		}
		if hubID.Valid {
			t.Hub = &floorHubRef{ID: hubID.String, Code: hubCode.String}
		}
		if o := byID[t.OrderID]; o != nil {
			o.LatestTracking = append(o.LatestTracking, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return orders, n, orders[len(orders)-1].ID, nil
}
