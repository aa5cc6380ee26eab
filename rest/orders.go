package rest

import (
	"context"
	"fmt"
	"net/http"
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
func (d Deps) orders() *resource[*ent.Order, ent.OrderWhereInput, view.OrderJSON, orderIn] {
	return &resource[*ent.Order, ent.OrderWhereInput, view.OrderJSON, orderIn]{
		what: "order", prefix: resourceid.Order, table: filter.OrderTable, parse: filter.Orders,
		page: func(r *http.Request, where *ent.OrderWhereInput, p page) ([]*ent.Order, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := view.OrderRefs(ent.FromContext(ctx).Order.Query()).
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithOrderOrder(orderBy(p.sort, newOrderOrder)), ent.WithOrderFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			rows, next, _ := nodes(conn.Edges, conn.PageInfo, func(e *ent.OrderEdge) *ent.Order { return e.Node })
			return rows, next, view.EmbedWorkflows(ctx, rows...)
		},
		// A page's newest tracking entries and lines are read for all its
		// orders at once (view.RenderOrderPage).
		renderPage: func(r *http.Request, rows []*ent.Order) ([]view.OrderJSON, func(), error) {
			return view.RenderOrderPage(r.Context(), rows)
		},
		load:   view.LoadOrder,
		render: plain(view.RenderOrder),
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
func (d Deps) orderLines() *resource[*ent.OrderLine, ent.OrderLineWhereInput, view.OrderLineJSON, lineIn] {
	return &resource[*ent.OrderLine, ent.OrderLineWhereInput, view.OrderLineJSON, lineIn]{
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
		render: plain(view.RenderOrderLine),
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
		writeResource(w, http.StatusCreated, etag(l.Revision), view.RenderOrderLine(l))
		return nil
	})
}
