package rest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/service"
	"logistics/internal/view"
)

type shipToJSON struct {
	Name       string `json:"name"`
	Line1      string `json:"line1"`
	Line2      string `json:"line2"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type workflowRefJSON struct {
	ID      resourceid.ID `json:"id"`
	Key     string        `json:"key,omitempty"`
	Version int           `json:"version,omitempty"`
}

type orderLineJSON struct {
	ID                resourceid.ID   `json:"id"`
	OrderID           resourceid.ID   `json:"order_id"`
	PartID            resourceid.ID   `json:"part_id"`
	Part              *partRefJSON    `json:"part,omitempty"` // on lines embedded in an order
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
	ShippedQuantity   decimal.Decimal `json:"shipped_quantity"`
	Revision          int             `json:"revision"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
}

type orderJSON struct {
	ID          resourceid.ID   `json:"id"`
	Number      string          `json:"number"`
	Status      string          `json:"status"`
	Workflow    workflowRefJSON `json:"workflow"`
	Hub         hubRefJSON      `json:"hub"`
	CustomerRef string          `json:"customer_ref"`
	Priority    string          `json:"priority"`
	ShipTo      shipToJSON      `json:"ship_to"`
	DueAt       *string         `json:"due_at"`
	Lines       []orderLineJSON `json:"lines"`
	// LatestTracking is the order's newest tracking entries (at most 3).
	LatestTracking []trackingJSON `json:"latest_tracking"`
	// AllowedTransitions are the transitions its workflow allows from its state.
	AllowedTransitions []string `json:"allowed_transitions"`
	Revision           int      `json:"revision"`
	CreatedAt          string   `json:"created_at"`
	UpdatedAt          string   `json:"updated_at"`
}

func renderOrderLine(l *ent.OrderLine) orderLineJSON {
	row := view.LineOf(l)
	return lineJSON(&row, nil, new(stamps))
}

// lineJSON is the representation of line l; with part, l's part is
// written there and embedded.
func lineJSON(l *view.Line, part *partRefJSON, st *stamps) orderLineJSON {
	out := orderLineJSON{
		ID: l.ID, OrderID: l.OrderID, PartID: l.PartID, Quantity: l.Quantity,
		AllocatedQuantity: l.AllocatedQuantity, ShippedQuantity: l.ShippedQuantity,
		Revision: l.Revision, CreatedAt: st.ts(l.CreatedAt), UpdatedAt: st.ts(l.UpdatedAt),
	}
	if part != nil {
		*part = partRefJSON{ID: l.PartID, SKU: l.SKU, PartName: l.PartName}
		out.Part = part
	}
	return out
}

func renderOrder(o *ent.Order) orderJSON {
	code := ""
	if h := o.Edges.Hub; h != nil {
		code = h.Code
	}
	var st stamps
	out := renderOrderHead(o, code, &st)
	out.Lines = make([]orderLineJSON, 0, len(o.Edges.Lines))
	for _, l := range o.Edges.Lines {
		var part *partRefJSON
		if l.Edges.Part != nil {
			part = new(partRefJSON)
		}
		row := view.LineOf(l)
		out.Lines = append(out.Lines, lineJSON(&row, part, &st))
	}
	out.LatestTracking = make([]trackingJSON, 0, min(len(o.Edges.TrackingEntries), view.LatestTracking))
	for i, t := range o.Edges.TrackingEntries {
		if i == view.LatestTracking {
			break
		}
		row := view.TrackingOf(t)
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
	orders   []orderJSON
	lines    []orderLineJSON
	parts    []partRefJSON
	tracking []trackingJSON
	hubs     []hubRefJSON
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
// as rows (lines[i] and tracking[i] are orders[i]'s: view.OrderRead.LineRows,
// TrackingRows) and whose hubs' codes their statement read
// (view.OrderRefs).
func (p *orderPage) render(orders []*ent.Order, lines [][]view.Line, tracking [][]view.Tracking) error {
	nl, nt := 0, 0
	for i := range orders {
		nl += len(lines[i])
		nt += min(len(tracking[i]), view.LatestTracking)
	}
	p.orders, p.lines, p.parts = resize(p.orders, len(orders)), resize(p.lines, nl), resize(p.parts, nl)
	p.tracking, p.hubs = resize(p.tracking, nt), resize(p.hubs, nt)
	kl, kt := 0, 0
	var st stamps
	for i, o := range orders {
		code, err := view.RefText(o, view.HubCode)
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
		for j := range tracking[i][:min(len(tracking[i]), view.LatestTracking)] {
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
func renderOrderHead(o *ent.Order, hubCode string, st *stamps) orderJSON {
	out := orderJSON{
		ID: o.ID, Number: o.Number, Status: o.Status,
		Workflow: workflowRefJSON{ID: o.WorkflowID}, Hub: hubRefJSON{ID: o.HubID},
		CustomerRef: o.CustomerRef, Priority: o.Priority.String(),
		ShipTo: shipToJSON{Name: o.ShipToName, Line1: o.ShipToLine1, Line2: o.ShipToLine2, City: o.ShipToCity,
			PostalCode: o.ShipToPostalCode, Country: o.ShipToCountry},
		DueAt:    tsp(o.DueAt),
		Revision: o.Revision, CreatedAt: st.ts(o.CreatedAt), UpdatedAt: st.ts(o.UpdatedAt),
	}
	out.Hub.Code = hubCode
	out.AllowedTransitions = []string{}
	if wf := o.Edges.Workflow; wf != nil {
		out.Workflow.Key, out.Workflow.Version = wf.Key, wf.Version
		if a := service.Definition(wf).Allowed(o.Status); a != nil {
			out.AllowedTransitions = a
		}
	}
	return out
}

type shipToIn struct {
	Name       *string `json:"name"`
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	City       *string `json:"city"`
	PostalCode *string `json:"postal_code"`
	Country    *string `json:"country"`
}

type lineIn struct {
	PartID   *resourceid.ID   `json:"part_id"`
	SKU      *string          `json:"sku"`
	Quantity *decimal.Decimal `json:"quantity"`
}

// orderIn is the body of POST and PATCH /v1/orders. lines and workflow are
// accepted by POST only.
type orderIn struct {
	Number      *string         `json:"number"`
	Hub         *string         `json:"hub"`
	HubID       *resourceid.ID  `json:"hub_id"`
	CustomerRef *string         `json:"customer_ref"`
	Priority    *order.Priority `json:"priority"`
	ShipTo      *shipToIn       `json:"ship_to"`
	DueAt       *time.Time      `json:"due_at"`
	Workflow    *string         `json:"workflow"`
	Lines       []lineIn        `json:"lines"`
}

// orders is the adapter of /v1/orders.
func (d Deps) orders() *resource[*ent.Order, ent.OrderWhereInput, orderJSON, orderIn] {
	return &resource[*ent.Order, ent.OrderWhereInput, orderJSON, orderIn]{
		what: "order", prefix: resourceid.Order, table: filter.OrderTable, parse: filter.Orders,
		page: func(r *http.Request, where *ent.OrderWhereInput, p page) ([]*ent.Order, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := view.OrderRefs(ent.FromContext(ctx).Order.Query()).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithOrderOrder(orderBy(p.sort, newOrderOrder)), ent.WithOrderFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			rows, next, _ := nodes(conn.Edges, conn.PageInfo, func(e *ent.OrderEdge) *ent.Order { return e.Node })
			return rows, next, d.embedWorkflows(ctx, rows...)
		},
		// A page's newest tracking entries and lines are read for all its
		// orders in one round trip, as rows (view.Rows), and rendered
		// into memory earlier pages were (orderPage); the hubs' codes come
		// from the page's statement (view.OrderRefs).
		renderPage: func(r *http.Request, rows []*ent.Order) ([]orderJSON, func(), error) {
			var lines view.Rows[view.Line]
			var tracking view.Rows[view.Tracking]
			defer lines.Release()
			defer tracking.Release()
			if err := view.PageWith(r.Context(), rows, view.OrderRead{LineRows: &lines, TrackingRows: &tracking}); err != nil {
				return nil, nil, err
			}
			if len(rows) == 0 {
				return []orderJSON{}, nil, nil
			}
			p := orderPages.Get().(*orderPage)
			if err := p.render(rows, lines.Of, tracking.Of); err != nil {
				p.release()
				return nil, nil, err
			}
			return p.orders, p.release, nil
		},
		load:   d.loadOrder,
		render: plain(renderOrder),
		key:    func(o *ent.Order) (resourceid.ID, int) { return o.ID, o.Revision },
		reload: true,
		create: d.createOrder,
		update: func(r *http.Request, id resourceid.ID, in *orderIn, nulls map[string]bool, rev *int) (*ent.Order, error) {
			if in.Lines != nil {
				return nil, apperr.Invalid("lines", "cannot be changed with PATCH: use /v1/orders/{id}/lines and /v1/order-lines/{id}")
			}
			if in.Workflow != nil {
				return nil, apperr.Invalid("workflow", "cannot be changed after the order is created")
			}
			u := ent.UpdateOrderInput{
				Number: in.Number, CustomerRef: in.CustomerRef, Priority: in.Priority, DueAt: in.DueAt, ClearDueAt: nulls["due_at"],
			}
			if in.HubID != nil || in.Hub != nil {
				var err error
				if u.HubID, err = resolveHub(r.Context(), in.HubID, in.Hub, "hub"); err != nil {
					return nil, err
				}
			}
			if s := in.ShipTo; s != nil {
				u.ShipToName, u.ShipToLine1, u.ShipToLine2, u.ShipToCity, u.ShipToPostalCode, u.ShipToCountry = s.Name, s.Line1, s.Line2, s.City, s.PostalCode, s.Country
			}
			return d.Service.UpdateOrder(r.Context(), id, u, rev)
		},
		remove: d.Service.DeleteOrder,
		names:  orderFieldNames,
	}
}

func newOrderOrder(dir ent.OrderDirection, f *ent.OrderOrderField) *ent.OrderOrder {
	return &ent.OrderOrder{Direction: dir, Field: f}
}

// orderFieldNames are the body's names of the order's fields where they
// differ from the model's.
var orderFieldNames = map[string]string{
	"ship_to_name": "ship_to.name", "ship_to_line1": "ship_to.line1", "ship_to_line2": "ship_to.line2",
	"ship_to_city": "ship_to.city", "ship_to_postal_code": "ship_to.postal_code", "ship_to_country": "ship_to.country",
}

// createOrder creates an order with its lines, reporting every problem at
// once: unknown codes and SKUs here, with the order's own fields and
// quantities (service.CheckNewOrder).
func (d Deps) createOrder(r *http.Request, in *orderIn) (*ent.Order, error) {
	ctx := r.Context()
	var problems []apperr.FieldError
	hubID, err := resolveHub(ctx, in.HubID, in.Hub, "hub")
	if problems, err = collect(problems, err); err != nil {
		return nil, err
	}
	c := ent.CreateOrderInput{
		Number: in.Number, HubID: deref(hubID), CustomerRef: in.CustomerRef, Priority: in.Priority, DueAt: in.DueAt,
	}
	if s := in.ShipTo; s != nil {
		c.ShipToName, c.ShipToLine1, c.ShipToLine2, c.ShipToCity, c.ShipToPostalCode, c.ShipToCountry = s.Name, s.Line1, s.Line2, s.City, s.PostalCode, s.Country
	}
	lines := make([]service.NewLine, len(in.Lines))
	for i, l := range in.Lines {
		field := fmt.Sprintf("lines[%d].part_id", i)
		if l.PartID == nil && l.SKU != nil {
			field = fmt.Sprintf("lines[%d].sku", i)
		}
		pid, err := resolvePart(ctx, l.PartID, l.SKU, field)
		if problems, err = collect(problems, err); err != nil {
			return nil, err
		}
		lines[i] = service.NewLine{PartID: deref(pid), Quantity: deref(l.Quantity)}
	}
	if len(problems) > 0 {
		for _, p := range service.CheckNewOrder(ctx, c, lines) {
			if p.Field != "hub_id" || hubID != nil {
				problems = append(problems, p)
			}
		}
		return nil, apperr.Validation(problems...)
	}
	return d.Service.CreateOrder(ctx, c, lines, deref(in.Workflow))
}

// ---- order lines ----

// existingOrder reads the order id of a nested route (/v1/orders/{id}/…) and
// checks that the order exists: 404 otherwise.
func existingOrder(r *http.Request) (resourceid.ID, error) {
	id, err := pathID(r, resourceid.Order, "order")
	if err != nil {
		return "", err
	}
	ctx := r.Context()
	if ok, err := ent.FromContext(ctx).Order.Query().Where(order.ID(id)).Exist(ctx); err != nil {
		return "", apperr.From(err)
	} else if !ok {
		return "", apperr.NotFound("order %s not found", id)
	}
	return id, nil
}

// orderLines is the adapter of an order's lines: listed and added under
// /v1/orders/{id}/lines, read and changed at /v1/order-lines/{id}.
func (d Deps) orderLines() *resource[*ent.OrderLine, ent.OrderLineWhereInput, orderLineJSON, lineIn] {
	return &resource[*ent.OrderLine, ent.OrderLineWhereInput, orderLineJSON, lineIn]{
		what: "order line", prefix: resourceid.OrderLine, table: filter.OrderLineTable, parse: filter.OrderLines,
		parent: func(r *http.Request) error { _, err := existingOrder(r); return err },
		page: func(r *http.Request, where *ent.OrderLineWhereInput, p page) ([]*ent.OrderLine, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).OrderLine.Query().Where(orderline.OrderID(resourceid.ID(r.PathValue("id")))).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithOrderLineOrder(orderBy(p.sort, newOrderLineOrder)), ent.WithOrderLineFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.OrderLineEdge) *ent.OrderLine { return e.Node })
		},
		load: func(ctx context.Context, id resourceid.ID) (*ent.OrderLine, error) {
			return ent.FromContext(ctx).OrderLine.Get(ctx, id)
		},
		render: plain(renderOrderLine),
		key:    func(l *ent.OrderLine) (resourceid.ID, int) { return l.ID, l.Revision },
		update: func(r *http.Request, id resourceid.ID, in *lineIn, _ map[string]bool, rev *int) (*ent.OrderLine, error) {
			var pid *resourceid.ID
			if in.PartID != nil || in.SKU != nil {
				var err error
				if pid, err = resolvePart(r.Context(), in.PartID, in.SKU, "part_id"); err != nil {
					return nil, err
				}
			}
			return d.Service.UpdateOrderLine(r.Context(), id, ent.UpdateOrderLineInput{PartID: pid, Quantity: in.Quantity}, rev)
		},
		remove: d.Service.DeleteOrderLine,
	}
}

func newOrderLineOrder(dir ent.OrderDirection, f *ent.OrderLineOrderField) *ent.OrderLineOrder {
	return &ent.OrderLineOrder{Direction: dir, Field: f}
}

// handleCreateOrderLine answers POST /v1/orders/{id}/lines with the new line,
// whose address is /v1/order-lines/{id}.
func handleCreateOrderLine(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, resourceid.Order, "order")
		if err != nil {
			return err
		}
		var in lineIn
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		ctx := r.Context()
		if ok, err := ent.FromContext(ctx).Order.Query().Where(order.ID(id)).Exist(ctx); err != nil {
			return err
		} else if !ok {
			return apperr.NotFound("order %s not found", id)
		}
		pid, err := resolvePart(ctx, in.PartID, in.SKU, "part_id")
		if err != nil {
			return err
		}
		l, err := d.Service.CreateOrderLine(ctx, ent.CreateOrderLineInput{OrderID: id, PartID: deref(pid), Quantity: in.Quantity})
		if err != nil {
			return err
		}
		w.Header().Set("Location", d.prefix+"/v1/order-lines/"+string(l.ID))
		writeResource(w, http.StatusCreated, etag(l.Revision), renderOrderLine(l))
		return nil
	})
}
