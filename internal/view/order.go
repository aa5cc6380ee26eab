package view

import (
	"context"
	"sync"
	"time"

	"logistics/ent"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

type ShipToJSON struct {
	Name       string `json:"name"`
	Line1      string `json:"line1"`
	Line2      string `json:"line2"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type WorkflowRefJSON struct {
	ID      resourceid.ID `json:"id"`
	Key     string        `json:"key,omitempty"`
	Version int           `json:"version,omitempty"`
}

type OrderLineJSON struct {
	ID                resourceid.ID   `json:"id"`
	OrderID           resourceid.ID   `json:"order_id"`
	PartID            resourceid.ID   `json:"part_id"`
	Part              *PartRefJSON    `json:"part,omitempty"` // on lines embedded in an order
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
	ShippedQuantity   decimal.Decimal `json:"shipped_quantity"`
	Revision          int             `json:"revision"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
}

type OrderJSON struct {
	ID          resourceid.ID   `json:"id"`
	Number      string          `json:"number"`
	Status      string          `json:"status"`
	Workflow    WorkflowRefJSON `json:"workflow"`
	Hub         HubRefJSON      `json:"hub"`
	CustomerRef string          `json:"customer_ref"`
	Priority    string          `json:"priority"`
	ShipTo      ShipToJSON      `json:"ship_to"`
	DueAt       *string         `json:"due_at"`
	Lines       []OrderLineJSON `json:"lines"`
	// LatestTracking is the order's newest tracking entries (at most 3).
	LatestTracking []TrackingJSON `json:"latest_tracking"`
	// AllowedTransitions are the transitions its workflow allows from its state.
	AllowedTransitions []string `json:"allowed_transitions"`
	Revision           int      `json:"revision"`
	CreatedAt          string   `json:"created_at"`
	UpdatedAt          string   `json:"updated_at"`
}

func RenderOrderLine(l *ent.OrderLine) OrderLineJSON {
	row := LineOf(l)
	return lineJSON(&row, nil, new(stamps))
}

// lineJSON is the representation of line l; with part, l's part is
// written there and embedded.
func lineJSON(l *Line, part *PartRefJSON, st *stamps) OrderLineJSON {
	out := OrderLineJSON{
		ID: l.ID, OrderID: l.OrderID, PartID: l.PartID, Quantity: l.Quantity,
		AllocatedQuantity: l.AllocatedQuantity, ShippedQuantity: l.ShippedQuantity,
		Revision: l.Revision, CreatedAt: st.ts(l.CreatedAt), UpdatedAt: st.ts(l.UpdatedAt),
	}
	if part != nil {
		*part = PartRefJSON{ID: l.PartID, SKU: l.SKU, PartName: l.PartName}
		out.Part = part
	}
	return out
}

func RenderOrder(o *ent.Order) OrderJSON {
	code := ""
	if h := o.Edges.Hub; h != nil {
		code = h.Code
	}
	var st stamps
	out := renderOrderHead(o, code, &st)
	out.Lines = make([]OrderLineJSON, 0, len(o.Edges.Lines))
	for _, l := range o.Edges.Lines {
		var part *PartRefJSON
		if l.Edges.Part != nil {
			part = new(PartRefJSON)
		}
		row := LineOf(l)
		out.Lines = append(out.Lines, lineJSON(&row, part, &st))
	}
	out.LatestTracking = make([]TrackingJSON, 0, min(len(o.Edges.TrackingEntries), LatestTracking))
	for i, t := range o.Edges.TrackingEntries {
		if i == LatestTracking {
			break
		}
		row := TrackingOf(t)
		out.LatestTracking = append(out.LatestTracking, trackingRowJSON(&row, nil, &st))
	}
	return out
}

// orderPage is the memory a page of orders is rendered into: the orders,
// and the page's lines, their parts, its newest tracking entries and their
// hubs each in one slice, every order's a part of them. Once the page is
// written it is kept for the next (orderPages): on SQLite fresh memory is
// what a page's time goes to (internal/view/rows.go).
type orderPage struct {
	orders   []OrderJSON
	lines    []OrderLineJSON
	parts    []PartRefJSON
	tracking []TrackingJSON
	hubs     []HubRefJSON
}

var orderPages = sync.Pool{New: func() any { return new(orderPage) }}

// maxPooledPage bounds the lines (and entries) of a page kept for the
// next: a page of 500 orders with 8 lines each fits.
const maxPooledPage = 4096

// resize returns s with n elements, reusing its memory when it has room;
// never nil (an order's part of it is [] in JSON, not null).
func resize[T any](s []T, n int) []T {
	if cap(s) < n || s == nil {
		return make([]T, n)
	}
	return s[:n]
}

// render renders orders whose lines and newest tracking entries were read
// as rows (lines[i] and tracking[i] are orders[i]'s: OrderRead.LineRows,
// TrackingRows) and whose hubs' codes their statement read
// (OrderRefs).
func (p *orderPage) render(orders []*ent.Order, lines [][]Line, tracking [][]Tracking) error {
	nl, nt := 0, 0
	for i := range orders {
		nl += len(lines[i])
		nt += min(len(tracking[i]), LatestTracking)
	}
	p.orders, p.lines, p.parts = resize(p.orders, len(orders)), resize(p.lines, nl), resize(p.parts, nl)
	p.tracking, p.hubs = resize(p.tracking, nt), resize(p.hubs, nt)
	kl, kt := 0, 0
	var st stamps
	for i, o := range orders {
		code, err := RefText(o, HubCode)
		if err != nil {
			return err
		}
		p.orders[i] = renderOrderHead(o, code, &st)
		start := kl
		for j := range lines[i] {
			p.lines[kl] = lineJSON(&lines[i][j], &p.parts[kl], &st)
			kl++
		}
		p.orders[i].Lines = p.lines[start:kl:kl]
		start = kt
		for j := range tracking[i][:min(len(tracking[i]), LatestTracking)] {
			p.tracking[kt] = trackingRowJSON(&tracking[i][j], &p.hubs[kt], &st)
			kt++
		}
		p.orders[i].LatestTracking = p.tracking[start:kt:kt]
	}
	return nil
}

// stamps formats timestamps as ts does, keeping the last two: the lines
// an order was created with were written in its transaction and share its
// times, and an entry is often created when it occurred.
type stamps struct {
	t    [2]time.Time
	s    [2]string
	next int
}

func (c *stamps) ts(t time.Time) string {
	for i := range c.t {
		if c.s[i] != "" && t.Equal(c.t[i]) {
			return c.s[i]
		}
	}
	i := c.next
	c.t[i], c.s[i], c.next = t, ts(t), 1-i
	return c.s[i]
}

// release keeps p for the next page, emptied (what it pointed to is the
// collector's), unless it grew past maxPooledPage.
func (p *orderPage) release() {
	if cap(p.lines) > maxPooledPage || cap(p.tracking) > maxPooledPage || cap(p.orders) > maxPooledPage {
		return
	}
	clear(p.orders[:cap(p.orders)])
	clear(p.lines[:cap(p.lines)])
	clear(p.parts[:cap(p.parts)])
	clear(p.tracking[:cap(p.tracking)])
	clear(p.hubs[:cap(p.hubs)])
	orderPages.Put(p)
}

// renderOrderHead renders all of an order but its lines and tracking
// entries; hubCode is its hub's code, st formats its times.
func renderOrderHead(o *ent.Order, hubCode string, st *stamps) OrderJSON {
	out := OrderJSON{
		ID: o.ID, Number: o.Number, Status: o.Status,
		Workflow: WorkflowRefJSON{ID: o.WorkflowID}, Hub: HubRefJSON{ID: o.HubID},
		CustomerRef: o.CustomerRef, Priority: o.Priority.String(),
		ShipTo: ShipToJSON{Name: o.ShipToName, Line1: o.ShipToLine1, Line2: o.ShipToLine2, City: o.ShipToCity,
			PostalCode: o.ShipToPostalCode, Country: o.ShipToCountry},
		DueAt:    tsp(o.DueAt),
		Revision: o.Revision, CreatedAt: st.ts(o.CreatedAt), UpdatedAt: st.ts(o.UpdatedAt),
	}
	out.Hub.Code = hubCode
	out.AllowedTransitions = []string{}
	if wf := o.Edges.Workflow; wf != nil {
		out.Workflow.Key, out.Workflow.Version = wf.Key, wf.Version
		if a := definition(wf).Allowed(o.Status); a != nil {
			out.AllowedTransitions = a
		}
	}
	return out
}

// definition is the workflow's definition (as the service's Definition).
func definition(w *ent.Workflow) workflowdef.Definition {
	return workflowdef.Definition{States: w.States, InitialState: w.InitialState, Transitions: w.Transitions}
}

// RenderOrderPage renders a page of orders as REST's list answers them:
// the page's newest tracking entries and lines are read for all its orders
// in one round trip, as rows (Rows), and rendered into memory earlier pages
// were (orderPage); the hubs' codes come from the page's statement
// (OrderRefs). release gives the memory back once the page is written.
func RenderOrderPage(ctx context.Context, rows []*ent.Order) (_ []OrderJSON, release func(), _ error) {
	var lines Rows[Line]
	var tracking Rows[Tracking]
	defer lines.Release()
	defer tracking.Release()
	if err := PageWith(ctx, rows, OrderRead{LineRows: &lines, TrackingRows: &tracking}); err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 {
		return []OrderJSON{}, nil, nil
	}
	p := orderPages.Get().(*orderPage)
	if err := p.render(rows, lines.Of, tracking.Of); err != nil {
		p.release()
		return nil, nil, err
	}
	return p.orders, p.release, nil
}
