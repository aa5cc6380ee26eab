package service

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/reservation"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/view"
	"logistics/internal/workflowdef"
)

// TransitionOptions are the optional inputs of a transition.
type TransitionOptions struct {
	TrackingNumber string // required by a ship effect
	Carrier        string // required by a ship effect
	Revision       *int   // when set, the order must still have this revision (else 412)
}

// TransitionOrder moves an order along one transition of its workflow
// version and applies the transition's stock effect, all in one database
// transaction: the state change, the effect, the order event and the domain
// event commit together or not at all.
func (s *Service) TransitionOrder(ctx context.Context, id resourceid.ID, transition string, opts TransitionOptions) (*ent.Order, error) {
	if err := checkID("id", id, resourceid.Order); err != nil {
		return nil, notFound("order", id)
	}
	var o *ent.Order
	err := WithTx(ctx, func(ctx context.Context) error {
		at, err := clockNow(ctx, time.Now().UTC())
		if err != nil {
			return err
		}
		o, err = s.transition(ctx, id, transition, opts, at)
		return err
	})
	return o, err
}

// AllowedTransitions lists the transitions that may leave the order's
// current state. Workflow rows never change their definition, so it is
// cached by workflow id: a page of orders costs no query per order.
func (s *Service) AllowedTransitions(ctx context.Context, o *ent.Order) ([]string, error) {
	var def workflowdef.Definition
	if wf := o.Edges.Workflow; wf != nil {
		def = Definition(wf)
	} else if wf, ok := view.CachedWorkflow(o.WorkflowID); ok {
		// The common case, once per order of a GraphQL page: no map or slice
		// built for a one-id Workflows call.
		def = Definition(wf)
	} else {
		wfs, err := view.Workflows(ctx, []resourceid.ID{o.WorkflowID})
		if err != nil {
			return nil, err
		}
		wf, ok := wfs[o.WorkflowID]
		if !ok {
			return nil, apperr.NotFound("workflow %s not found", o.WorkflowID)
		}
		def = Definition(wf)
	}
	a := def.Allowed(o.Status)
	if a == nil {
		a = []string{}
	}
	return a, nil
}

// transition runs inside a transaction.
func (s *Service) transition(ctx context.Context, id resourceid.ID, name string, opts TransitionOptions, at time.Time) (*ent.Order, error) {
	c := client(ctx)
	// Locks the order (PostgreSQL) before anything is read, so the event's
	// previous_attributes are exact. The row the snapshot was rendered from
	// is the order as this transaction holds it, with all its lines (the
	// representation embeds them): no second read of either.
	row, before, err := s.snapshotRow(ctx, id)
	if err != nil {
		return nil, err
	}
	o, _ := row.(*ent.Order)
	var lines []*ent.OrderLine
	if o != nil {
		lines = o.Edges.Lines
	} else if o, err = c.Order.Get(ctx, id); ent.IsNotFound(err) {
		return nil, notFound("order", id)
	} else if err != nil {
		return nil, apperr.From(err)
	} else if lines, err = c.OrderLine.Query().Where(orderline.OrderID(id)).All(ctx); err != nil {
		return nil, apperr.From(err)
	}
	// The workflow version from the process-wide cache (versions never
	// change), not one more statement. Read here only: o does not leave
	// this function, and nothing is queried from the cached row.
	wfs, err := view.Workflows(ctx, []resourceid.ID{o.WorkflowID})
	if err != nil {
		return nil, err
	}
	if o.Edges.Workflow = wfs[o.WorkflowID]; o.Edges.Workflow == nil {
		return nil, apperr.Internal(fmt.Errorf("order %s: workflow %s not found", id, o.WorkflowID))
	}
	def := Definition(o.Edges.Workflow)
	t, ok := def.Find(name)
	if !ok || !slices.Contains(t.From, o.Status) {
		why := fmt.Sprintf("transition %q is not allowed from state %s", name, o.Status)
		if !ok {
			why = fmt.Sprintf("workflow %s v%d has no transition %q", o.Edges.Workflow.Key, o.Edges.Workflow.Version, name)
		}
		return nil, illegal(o, def, why)
	}
	if opts.Revision != nil && *opts.Revision != o.Revision {
		return nil, apperr.Precondition("order %s was changed by someone else: fetch it again and retry with its current revision", id)
	}
	if t.Effect == workflowdef.EffectShip {
		var fe []apperr.FieldError
		if strings.TrimSpace(opts.TrackingNumber) == "" {
			fe = append(fe, apperr.FieldError{Field: "tracking_number", Message: "is required by the " + name + " transition"})
		}
		if strings.TrimSpace(opts.Carrier) == "" {
			fe = append(fe, apperr.FieldError{Field: "carrier", Message: "is required by the " + name + " transition"})
		}
		if len(fe) > 0 {
			return nil, apperr.Validation(fe...)
		}
	}
	// The state change comes first and is conditional on the state we read:
	// it locks the order row, so a concurrent transition of the same order
	// waits and then finds the state changed (0 rows) instead of applying
	// the effect twice.
	u := c.Order.Update().Where(order.ID(id), order.Status(o.Status))
	if opts.Revision != nil {
		u.Where(order.Revision(*opts.Revision))
	}
	// updated_at is written here, to the microsecond PostgreSQL keeps, so
	// the order after the change can be rendered without reading it back.
	now := writeNow()
	n, err := u.SetStatus(t.To).
		AddRevision(1).
		SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	if n == 0 {
		cur, err := c.Order.Query().Where(order.ID(id)).WithWorkflow().Only(ctx)
		if err != nil {
			return nil, apperr.From(err)
		}
		if opts.Revision != nil && cur.Status == o.Status {
			return nil, apperr.Precondition("order %s was changed by someone else: fetch it again and retry with its current revision", id)
		}
		return nil, illegal(cur, Definition(cur.Edges.Workflow), fmt.Sprintf("order %s changed to %s meanwhile", id, cur.Status))
	}
	switch t.Effect {
	case workflowdef.EffectReserve:
		err = s.reserve(ctx, o, lines)
	case workflowdef.EffectRelease:
		err = s.release(ctx, o)
	case workflowdef.EffectShip:
		err = s.ship(ctx, o, lines, opts, at)
	}
	// The order after the change, built from the snapshot's row: when the
	// effect changed nothing the order embeds but its lines, and reserve's
	// lineChanged has moved those in place. A release or a ship (new
	// tracking entry, lines read again) reads the order back instead.
	fromChange := row != nil && (t.Effect == workflowdef.EffectNone || t.Effect == workflowdef.EffectReserve)
	if err == nil && t.To == def.InitialState && t.Effect != workflowdef.EffectRelease {
		// Lines are editable in the initial state, so nothing may stay
		// reserved there. Validate refuses such a transition in new
		// definitions; this covers versions stored before it did.
		err, fromChange = s.release(ctx, o), false
	}
	if err != nil {
		return nil, err
	}
	if err := c.OrderEvent.Create().
		SetOrderID(id).
		SetFromState(o.Status).
		SetToState(t.To).
		SetTransition(t.Name).
		SetActor(auth.Actor(ctx)).
		SetOccurredAt(at).
		Exec(ctx); err != nil {
		return nil, apperr.From(err)
	}
	extra := map[string]any{"transition": map[string]any{
		"name": t.Name, "from": o.Status, "to": t.To, "effect": string(t.Effect),
		"workflow": o.Edges.Workflow.Key, "workflow_version": o.Edges.Workflow.Version,
	}}
	if fromChange {
		after := *o
		after.Status, after.Revision, after.UpdatedAt = t.To, o.Revision+1, now
		row, err = s.emitUpdatedFrom(ctx, "order.transitioned", id, before, extra, &after)
	} else {
		row, err = s.emitUpdatedRow(ctx, "order.transitioned", id, before, extra)
	}
	if err != nil {
		return nil, err
	}
	if after, ok := row.(*ent.Order); ok {
		// The order as the event rendered it, after every change. Its edges
		// hold only what the representation embeds (a line's part is its id,
		// sku and name), so they are dropped; the row is not bound to a
		// client either (rest reads it by hand), so a caller that wants
		// edges reads the order again (GraphQL's eagerOrder).
		out := *after
		out.Edges = ent.OrderEdges{}
		return &out, nil
	}
	out, err := c.Order.Get(ctx, id)
	if err != nil {
		return nil, apperr.From(err)
	}
	return out, nil
}

func illegal(o *ent.Order, def workflowdef.Definition, why string) error {
	allowed := def.Allowed(o.Status)
	if allowed == nil {
		allowed = []string{}
	}
	return apperr.Conflict("illegal_transition", "%s; allowed from %s: %s", why, o.Status, listOrNone(allowed)).
		WithDetail("state", o.Status).
		WithDetail("allowed_transitions", allowed)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// Shortage is one line that could not be reserved in full.
type Shortage struct {
	PartID    resourceid.ID   `json:"part_id"`
	SKU       string          `json:"sku"`
	Requested decimal.Decimal `json:"requested"`
	Available decimal.Decimal `json:"available"`
}

// reserve reserves what every line still lacks at the order's hub, all or
// nothing; lines are the order's lines as the transaction read them, under
// the order's lock. Each reservation is a conditional UPDATE (available ≥
// amount in the WHERE clause), so concurrent reservations on any number of
// instances can never oversell: one that loses a race updates 0 rows and
// tries again with what is left. Lines are handled in part order and items
// in a fixed order (FEFO, then oldest) so concurrent transactions lock rows
// in the same order and do not deadlock.
func (s *Service) reserve(ctx context.Context, o *ent.Order, lines []*ent.OrderLine) error {
	c := client(ctx)
	lines = slices.Clone(lines)
	slices.SortFunc(lines, func(a, b *ent.OrderLine) int {
		return cmp.Or(cmp.Compare(a.PartID, b.PartID), cmp.Compare(a.ID, b.ID))
	})
	var short []Shortage
	for _, l := range lines {
		need := l.Quantity - l.AllocatedQuantity
		if need <= 0 {
			continue
		}
		got, err := s.reserveLine(ctx, o, l, need)
		if err != nil {
			return err
		}
		if got < need {
			short = append(short, Shortage{PartID: l.PartID, Requested: need, Available: got})
		}
	}
	if len(short) == 0 {
		return nil
	}
	ids := make([]resourceid.ID, len(short))
	for i, sh := range short {
		ids[i] = sh.PartID
	}
	parts, err := c.Part.Query().Where(part.IDIn(ids...)).Select(part.FieldID, part.FieldSku).All(ctx)
	if err != nil {
		return apperr.From(err)
	}
	sku := map[resourceid.ID]string{}
	for _, p := range parts {
		sku[p.ID] = p.Sku
	}
	msgs := make([]string, len(short))
	for i := range short {
		short[i].SKU = sku[short[i].PartID]
		msgs[i] = fmt.Sprintf("%s needs %s, %s available", short[i].SKU, short[i].Requested, short[i].Available)
	}
	return apperr.Conflict("insufficient_stock", "not enough available stock at the order's hub: %s; nothing was reserved", strings.Join(msgs, "; ")).
		WithDetail("shortages", short)
}

// reserveLine reserves up to need for one line across the available items of
// its part at the order's hub and returns how much it got.
func (s *Service) reserveLine(ctx context.Context, o *ent.Order, l *ent.OrderLine, need decimal.Decimal) (decimal.Decimal, error) {
	c := client(ctx)
	// IN (?) rather than = ?: the same plan, but SQLite would prepare the
	// statement again at each use (go-sqlite3 clears its bindings).
	items, err := c.Item.Query().
		Where(item.HubIDIn(o.HubID), item.PartIDIn(l.PartID), item.StatusIn(item.StatusAvailable), availableAtLeast(1)).
		Order(item.ByExpiresAt(entsql.OrderNullsLast()), item.ByCreatedAt(), item.ByID()).
		Select(item.FieldID, item.FieldQuantity, item.FieldReservedQuantity).
		All(ctx)
	if err != nil {
		return 0, apperr.From(err)
	}
	var got decimal.Decimal
	for _, it := range items {
		avail := it.Quantity - it.ReservedQuantity
		for got < need && avail > 0 {
			take := min(avail, need-got)
			// updated_at to the microsecond PostgreSQL keeps: the event
			// renders the returned row as a read would.
			after, err := takeStock(ctx, it.ID, take, writeNow())
			if err != nil {
				return 0, apperr.From(err)
			}
			if after != nil {
				if err := c.Reservation.Create().SetOrderID(o.ID).SetOrderLineID(l.ID).SetItemID(it.ID).SetQuantity(take).Exec(ctx); err != nil {
					return 0, apperr.From(err)
				}
				if err := s.stockTaken(ctx, after, take, o, l, "reserve"); err != nil {
					return 0, err
				}
				got += take
				break
			}
			// Someone reserved from this item meanwhile: read what is left and retry.
			cur, err := c.Item.Query().Where(item.ID(it.ID)).Select(item.FieldQuantity, item.FieldReservedQuantity, item.FieldStatus).Only(ctx)
			if err != nil {
				return 0, apperr.From(err)
			}
			avail = cur.Quantity - cur.ReservedQuantity
			if cur.Status != item.StatusAvailable {
				avail = 0
			}
		}
		if got >= need {
			break
		}
	}
	if got > 0 {
		if err := s.lineChanged(ctx, l, l.AllocatedQuantity+got, l.ShippedQuantity,
			map[string]any{"allocated_quantity": l.AllocatedQuantity}, o.ID, "reserve"); err != nil {
			return 0, err
		}
	}
	return got, nil
}

// reservationsInLockOrder returns the order's reservations in the order in
// which reserve locks items — part, then FEFO, then age, then id — so that a
// release or ship running beside an allocation on PostgreSQL takes row locks
// in the same global order and the two cannot deadlock.
func reservationsInLockOrder(ctx context.Context, orderID resourceid.ID) ([]*ent.Reservation, error) {
	c := client(ctx)
	rs, err := c.Reservation.Query().Where(reservation.OrderID(orderID)).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	ids := make([]resourceid.ID, len(rs))
	for i, r := range rs {
		ids[i] = r.ItemID
	}
	items, err := c.Item.Query().Where(item.IDIn(ids...)).
		Select(item.FieldID, item.FieldPartID, item.FieldExpiresAt, item.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	rank := map[resourceid.ID]int{}
	slices.SortFunc(items, func(a, b *ent.Item) int {
		return cmp.Or(cmp.Compare(a.PartID, b.PartID), compareExpiry(a.ExpiresAt, b.ExpiresAt), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	for i, it := range items {
		rank[it.ID] = i
	}
	slices.SortFunc(rs, func(a, b *ent.Reservation) int {
		return cmp.Or(cmp.Compare(rank[a.ItemID], rank[b.ItemID]), cmp.Compare(a.ID, b.ID))
	})
	return rs, nil
}

// compareExpiry orders expiry dates earliest first, none last (as NULLS LAST).
func compareExpiry(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}

// availableAtLeast is quantity - reserved_quantity >= q, built with sql.P and
// Builder.Arg so the placeholder is right on every dialect.
func availableAtLeast(q decimal.Decimal) func(*entsql.Selector) {
	return func(s *entsql.Selector) {
		s.Where(entsql.P(func(b *entsql.Builder) {
			b.Ident(s.C(item.FieldQuantity)).WriteOp(entsql.OpSub).Ident(s.C(item.FieldReservedQuantity)).
				WriteOp(entsql.OpGTE).Arg(int64(q))
		}))
	}
}

// release gives back every reservation of the order.
func (s *Service) release(ctx context.Context, o *ent.Order) error {
	c := client(ctx)
	rs, err := reservationsInLockOrder(ctx, o.ID)
	if err != nil {
		return err
	}
	for _, r := range rs {
		n, err := c.Item.Update().
			Where(item.ID(r.ItemID), item.ReservedQuantityGTE(r.Quantity)).
			AddReservedQuantity(-r.Quantity).
			AddRevision(1).
			Save(ctx)
		if err != nil {
			return apperr.From(err)
		}
		if n != 1 {
			return apperr.Internal(fmt.Errorf("release: item %s holds less than reservation %s", r.ItemID, r.ID))
		}
		if err := s.stockChanged(ctx, r.ItemID, 0, -r.Quantity, o.ID, "release"); err != nil {
			return err
		}
	}
	if _, err := c.Reservation.Delete().Where(reservation.OrderID(o.ID)).Exec(ctx); err != nil {
		return apperr.From(err)
	}
	lines, err := c.OrderLine.Query().Where(orderline.OrderID(o.ID), orderline.AllocatedQuantityGT(0)).
		Order(ent.Asc(orderline.FieldID)).All(ctx)
	if err != nil {
		return apperr.From(err)
	}
	for _, l := range lines {
		if err := s.lineChanged(ctx, l, 0, l.ShippedQuantity,
			map[string]any{"allocated_quantity": l.AllocatedQuantity}, o.ID, "release"); err != nil {
			return err
		}
	}
	return nil
}

// ship reserves whatever is still missing (a custom workflow may ship without
// an earlier reserve), consumes every reservation — the items' quantity and
// reserved_quantity both drop — marks the lines shipped and records the
// label_created tracking entry.
func (s *Service) ship(ctx context.Context, o *ent.Order, lines []*ent.OrderLine, opts TransitionOptions, at time.Time) error {
	if err := s.reserve(ctx, o, lines); err != nil {
		return err
	}
	c := client(ctx)
	rs, err := reservationsInLockOrder(ctx, o.ID)
	if err != nil {
		return err
	}
	for _, r := range rs {
		n, err := c.Item.Update().
			Where(item.ID(r.ItemID), item.ReservedQuantityGTE(r.Quantity), item.QuantityGTE(r.Quantity)).
			AddQuantity(-r.Quantity).
			AddReservedQuantity(-r.Quantity).
			AddRevision(1).
			Save(ctx)
		if err != nil {
			return apperr.From(err)
		}
		if n != 1 {
			return apperr.Internal(fmt.Errorf("ship: item %s holds less than reservation %s", r.ItemID, r.ID))
		}
		if err := s.stockChanged(ctx, r.ItemID, -r.Quantity, -r.Quantity, o.ID, "ship"); err != nil {
			return err
		}
	}
	if _, err := c.Reservation.Delete().Where(reservation.OrderID(o.ID)).Exec(ctx); err != nil {
		return apperr.From(err)
	}
	// Read again: reserve has just changed what the lines hold.
	lines, err = c.OrderLine.Query().Where(orderline.OrderID(o.ID)).All(ctx)
	if err != nil {
		return apperr.From(err)
	}
	for _, l := range lines {
		if err := s.lineChanged(ctx, l, 0, l.ShippedQuantity+l.AllocatedQuantity, map[string]any{
			"allocated_quantity": l.AllocatedQuantity, "shipped_quantity": l.ShippedQuantity,
		}, o.ID, "ship"); err != nil {
			return err
		}
	}
	te, err := c.TrackingEntry.Create().
		SetOrderID(o.ID).
		SetTrackingNumber(strings.TrimSpace(opts.TrackingNumber)).
		SetCarrier(strings.TrimSpace(opts.Carrier)).
		SetStatus(trackingentry.StatusLabelCreated).
		SetHubID(o.HubID).
		SetDescription("Shipping label created").
		SetOccurredAt(at).
		Save(ctx)
	if err != nil {
		return apperr.From(err)
	}
	if err := s.emitCreated(ctx, "tracking_entry.created", te.ID, nil); err != nil {
		return err
	}
	if s.Shipped != nil {
		return s.Shipped(ctx, te)
	}
	return nil
}

// applyDelivered moves the order of a delivered tracking entry along its
// workflow's deliver transition when its state allows it and the entry is not
// older than the order's last transition: a late, older scan never moves an
// order (and nothing moves an order backwards: tracking only ever delivers).
func (s *Service) applyDelivered(ctx context.Context, te *ent.TrackingEntry) error {
	if te.Status != trackingentry.StatusDelivered {
		return nil
	}
	c := client(ctx)
	o, err := c.Order.Query().Where(order.ID(te.OrderID)).WithWorkflow().Only(ctx)
	if err != nil {
		return apperr.From(err)
	}
	if !slices.Contains(Definition(o.Edges.Workflow).Allowed(o.Status), "deliver") {
		return nil
	}
	last, err := c.OrderEvent.Query().Where(orderevent.OrderID(o.ID)).Order(ent.Desc(orderevent.FieldOccurredAt)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return apperr.From(err)
	}
	if last != nil && te.OccurredAt.Before(last.OccurredAt) {
		return nil
	}
	_, err = s.transition(ctx, o.ID, "deliver", TransitionOptions{}, te.OccurredAt.UTC())
	return err
}
