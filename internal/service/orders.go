package service

import (
	"context"
	"fmt"
	"slices"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/reservation"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/fieldcheck"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

// NewLine is a line of an order being created.
type NewLine struct {
	PartID   resourceid.ID
	Quantity decimal.Decimal
}

// CreateOrder creates an order in the initial state of the latest version of
// its workflow (fulfilment when workflowKey is empty), with its lines, in one
// transaction.
func (s *Service) CreateOrder(ctx context.Context, in ent.CreateOrderInput, lines []NewLine, workflowKey string) (*ent.Order, error) {
	if err := checkID("hub_id", in.HubID, resourceid.Hub); err != nil {
		return nil, err
	}
	// Every problem of the order and its lines at once: the missing hub
	// first, then the order's fields, the lines' ids and quantities, and
	// the missing parts.
	problems := CheckNewOrder(ctx, in, nil)
	lineProblems, partIDs := checkLineShapes(lines)
	check := func(ctx context.Context) (hubP, partP []apperr.FieldError, err error) {
		if hubP, err = missing(ctx, "hub_id", client(ctx).Hub.Query().Where(hub.ID(in.HubID)).Exist, in.HubID); err != nil {
			return nil, nil, err
		}
		if partP, err = missingParts(ctx, lines, partIDs); err != nil {
			return nil, nil, err
		}
		return hubP, partP, nil
	}
	// Valid on its own: the hub and parts are left to the foreign keys (see
	// refs.go); with other problems, they are reported with them.
	r := newRefs(ctx, func(ctx context.Context) ([]apperr.FieldError, error) {
		hubP, partP, err := check(ctx)
		return append(hubP, partP...), err
	})
	if len(problems) > 0 || len(lineProblems) > 0 || !r.after {
		hubP, partP, err := check(ctx)
		if err != nil {
			return nil, err
		}
		if all := slices.Concat(hubP, problems, lineProblems, partP); len(all) > 0 {
			return nil, apperr.Validation(all...)
		}
		r.after = false
	}
	if workflowKey == "" {
		workflowKey = workflowdef.FulfilmentKey
	}
	var o *ent.Order
	err := WithTx(ctx, func(ctx context.Context) error {
		wf, err := s.LatestWorkflow(ctx, workflowKey)
		if err != nil {
			return err
		}
		c := client(ctx)
		// The timestamps are set here: order.created is rendered from
		// these rows (emitOrderCreated).
		now := writeNow()
		o, err = c.Order.Create().SetInput(in).SetWorkflowID(wf.ID).SetStatus(wf.InitialState).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return apperr.From(err)
		}
		var created []*ent.OrderLine
		if len(lines) > 0 {
			bulk := make([]*ent.OrderLineCreate, len(lines))
			for i, l := range lines {
				bulk[i] = c.OrderLine.Create().SetOrderID(o.ID).SetPartID(l.PartID).SetQuantity(l.Quantity).
					SetCreatedAt(now).SetUpdatedAt(now)
			}
			if created, err = c.OrderLine.CreateBulk(bulk...).Save(ctx); err != nil {
				return apperr.From(err)
			}
		}
		return s.emitOrderCreated(ctx, o, created, wf)
	})
	if err != nil {
		return nil, r.failed(ctx, err)
	}
	return o, nil
}

// CheckNewOrder returns the problems of an order's own fields and of its
// lines' quantities, without reading the database: for an interface that
// found problems of its own (an unknown hub code or SKU) and reports them
// together with these.
func CheckNewOrder(ctx context.Context, in ent.CreateOrderInput, lines []NewLine) []apperr.FieldError {
	problems := fieldcheck.Set(client(ctx).Order.Create().SetInput(in).Mutation())
	for i, l := range lines {
		if l.Quantity <= 0 {
			problems = append(problems, apperr.FieldError{Field: fmt.Sprintf("lines[%d].quantity", i), Message: "must be greater than 0"})
		}
	}
	return problems
}

// checkLineShapes checks new lines without reading the database: part ids
// of the part type, positive quantities. It returns the problems and the
// well-formed part ids, whose existence missingParts checks.
func checkLineShapes(lines []NewLine) ([]apperr.FieldError, []resourceid.ID) {
	var problems []apperr.FieldError
	partIDs := make([]resourceid.ID, 0, len(lines))
	for i, l := range lines {
		if err := checkID("part_id", l.PartID, resourceid.Part); err != nil {
			problems = append(problems, apperr.FieldError{Field: fmt.Sprintf("lines[%d].part_id", i), Message: err.(*apperr.Error).Fields[0].Message})
			continue
		}
		if l.Quantity <= 0 {
			problems = append(problems, apperr.FieldError{Field: fmt.Sprintf("lines[%d].quantity", i), Message: "must be greater than 0"})
		}
		partIDs = append(partIDs, l.PartID)
	}
	return problems, partIDs
}

// missingParts reads which of partIDs (the lines' well-formed part ids)
// exist: a problem for each line whose part does not.
func missingParts(ctx context.Context, lines []NewLine, partIDs []resourceid.ID) ([]apperr.FieldError, error) {
	if len(partIDs) == 0 {
		return nil, nil
	}
	found, err := client(ctx).Part.Query().Where(part.IDIn(partIDs...)).IDs(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	have := make(map[resourceid.ID]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	var problems []apperr.FieldError
	for i, l := range lines {
		if l.PartID.Prefix() == resourceid.Part && !have[l.PartID] {
			problems = append(problems, apperr.FieldError{Field: fmt.Sprintf("lines[%d].part_id", i), Message: fmt.Sprintf("part %s does not exist", l.PartID)})
		}
	}
	return problems, nil
}

// UpdateOrder changes an order's details (never its status: that takes a
// transition). Its origin hub may change only in the initial state.
func (s *Service) UpdateOrder(ctx context.Context, id resourceid.ID, in ent.UpdateOrderInput, rev *int) (*ent.Order, error) {
	if err := checkID("id", id, resourceid.Order); err != nil {
		return nil, notFound("order", id)
	}
	var o *ent.Order
	err := WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		if in.HubID != nil {
			if err := checkID("hub_id", *in.HubID, resourceid.Hub); err != nil {
				return err
			}
			if err := mustExist(ctx, "hub_id", c.Hub.Query().Where(hub.ID(*in.HubID)).Exist, *in.HubID); err != nil {
				return err
			}
			if err := s.requireInitialState(ctx, id, "change the hub of"); err != nil {
				return err
			}
		}
		u := c.Order.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(order.Revision(*rev))
		}
		if o, err = u.Save(ctx); ent.IsNotFound(err) {
			return revisionMismatch(ctx, "order", id, c.Order.Query().Where(order.ID(id)).Exist)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, "order.updated", id, before, nil)
	})
	return o, err
}

// DeleteOrder removes an order in its initial or a terminal state (nothing
// reserved), with its lines, tracking entries and events.
func (s *Service) DeleteOrder(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.Order); err != nil {
		return notFound("order", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		o, err := c.Order.Query().Where(order.ID(id)).WithWorkflow().Only(ctx)
		if ent.IsNotFound(err) {
			return notFound("order", id)
		} else if err != nil {
			return apperr.From(err)
		}
		def := Definition(o.Edges.Workflow)
		if o.Status != def.InitialState && !def.Terminal(o.Status) {
			return apperr.Conflict("order_in_progress", "order %s is %s: only an order in its initial state (%s) or a final state can be deleted; cancel it first", id, o.Status, def.InitialState).
				WithDetail("allowed_transitions", def.Allowed(o.Status))
		}
		// A custom workflow may end (or start over) in a state that still holds
		// stock: give it back rather than leave reservations behind.
		if err := s.release(ctx, o); err != nil {
			return err
		}
		if _, err := c.OrderEvent.Delete().Where(orderevent.OrderID(id)).Exec(ctx); err != nil {
			return apperr.From(err)
		}
		if _, err := c.TrackingEntry.Delete().Where(trackingentry.OrderID(id)).Exec(ctx); err != nil {
			return apperr.From(err)
		}
		if _, err := c.OrderLine.Delete().Where(orderline.OrderID(id)).Exec(ctx); err != nil {
			return apperr.From(err)
		}
		if err := c.Order.DeleteOneID(id).Exec(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, "order.deleted", id, last)
	})
}

// requireInitialState refuses a change unless the order is still in its
// workflow's initial state (so nothing is reserved yet). It locks the order
// row first (PostgreSQL), as a transition's UPDATE does: a transition that
// reserves then waits for the change's commit and reserves what it wrote,
// or, having moved first, makes the change find the order moved on. Without
// the lock a line could be edited while a reservation read its old quantity
// (TestLineEditRacesReservation).
func (s *Service) requireInitialState(ctx context.Context, id resourceid.ID, what string) error {
	if _, err := lockRow(ctx, id); err != nil {
		return err
	}
	o, err := client(ctx).Order.Query().Where(order.ID(id)).WithWorkflow().Only(ctx)
	if ent.IsNotFound(err) {
		return notFound("order", id)
	} else if err != nil {
		return apperr.From(err)
	}
	if o.Status != o.Edges.Workflow.InitialState {
		return apperr.Conflict("order_not_editable", "cannot %s order %s in state %s: only in %s", what, id, o.Status, o.Edges.Workflow.InitialState)
	}
	// Transitions release everything on the way into the initial state, so
	// this holds by construction; checked all the same, as the invariant
	// that makes line edits safe (a line must never lose its reservation).
	reserved, err := client(ctx).Reservation.Query().Where(reservation.OrderID(id)).Exist(ctx)
	if err != nil {
		return apperr.From(err)
	}
	if reserved {
		return apperr.Conflict("stock_reserved", "cannot %s order %s: it holds reserved stock", what, id)
	}
	return nil
}

// CreateOrderLine adds a line to an order in its initial state.
func (s *Service) CreateOrderLine(ctx context.Context, in ent.CreateOrderLineInput) (*ent.OrderLine, error) {
	if err := checkID("order_id", in.OrderID, resourceid.Order); err != nil {
		return nil, err
	}
	nl := []NewLine{{PartID: in.PartID, Quantity: derefQty(in.Quantity)}}
	problems, partIDs := checkLineShapes(nl)
	r := newRefs(ctx, func(ctx context.Context) ([]apperr.FieldError, error) { return missingParts(ctx, nl, partIDs) })
	if len(problems) > 0 || !r.after {
		p, err := r.check(ctx)
		if err != nil {
			return nil, err
		}
		if problems = append(problems, p...); len(problems) > 0 {
			return nil, apperr.Validation(problems...)
		}
		r.after = false
	}
	var l *ent.OrderLine
	err := WithTx(ctx, func(ctx context.Context) error {
		if err := s.requireInitialState(ctx, in.OrderID, "add lines to"); err != nil {
			if ae := apperr.From(err); ae.Kind == apperr.KindNotFound {
				return apperr.Validation(apperr.FieldError{Field: "order_id", Message: fmt.Sprintf("order %s does not exist", in.OrderID)})
			}
			return err
		}
		var err error
		if l, err = client(ctx).OrderLine.Create().SetInput(in).Save(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, "order_line.created", l.ID, nil)
	})
	if err != nil {
		return nil, r.failed(ctx, err)
	}
	return l, nil
}

// UpdateOrderLine changes a line of an order in its initial state.
func (s *Service) UpdateOrderLine(ctx context.Context, id resourceid.ID, in ent.UpdateOrderLineInput, rev *int) (*ent.OrderLine, error) {
	if err := checkID("id", id, resourceid.OrderLine); err != nil {
		return nil, notFound("order line", id)
	}
	if in.Quantity != nil && *in.Quantity <= 0 {
		return nil, apperr.Validation(apperr.FieldError{Field: "quantity", Message: "must be greater than 0"})
	}
	r := refs{}
	if in.PartID != nil {
		if err := checkID("part_id", *in.PartID, resourceid.Part); err != nil {
			return nil, err
		}
		pid := *in.PartID
		r = newRefs(ctx, func(ctx context.Context) ([]apperr.FieldError, error) {
			return missing(ctx, "part_id", client(ctx).Part.Query().Where(part.ID(pid)).Exist, pid)
		})
		if err := r.first(ctx); err != nil {
			return nil, err
		}
	}
	var l *ent.OrderLine
	err := WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		cur, err := c.OrderLine.Get(ctx, id)
		if ent.IsNotFound(err) {
			return notFound("order line", id)
		} else if err != nil {
			return apperr.From(err)
		}
		if err := s.requireInitialState(ctx, cur.OrderID, "change lines of"); err != nil {
			return err
		}
		before, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		u := c.OrderLine.UpdateOneID(id).SetInput(in).AddRevision(1)
		if rev != nil {
			u.Where(orderline.Revision(*rev))
		}
		if l, err = u.Save(ctx); ent.IsNotFound(err) {
			return revisionMismatch(ctx, "order line", id, c.OrderLine.Query().Where(orderline.ID(id)).Exist)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitUpdated(ctx, "order_line.updated", id, before, nil)
	})
	if err != nil {
		return nil, r.failed(ctx, err)
	}
	return l, nil
}

// DeleteOrderLine removes a line of an order in its initial state.
func (s *Service) DeleteOrderLine(ctx context.Context, id resourceid.ID) error {
	if err := checkID("id", id, resourceid.OrderLine); err != nil {
		return notFound("order line", id)
	}
	return WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		cur, err := c.OrderLine.Get(ctx, id)
		if ent.IsNotFound(err) {
			return notFound("order line", id)
		} else if err != nil {
			return apperr.From(err)
		}
		if err := s.requireInitialState(ctx, cur.OrderID, "remove lines from"); err != nil {
			return err
		}
		last, err := s.snapshot(ctx, id)
		if err != nil {
			return err
		}
		if err := c.OrderLine.DeleteOneID(id).Exec(ctx); err != nil {
			return apperr.From(err)
		}
		return s.emitDeleted(ctx, "order_line.deleted", id, last)
	})
}

func derefQty(q *decimal.Decimal) decimal.Decimal {
	if q == nil {
		return 0
	}
	return *q
}
