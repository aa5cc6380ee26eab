package view

import (
	"context"
	"fmt"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// Represent renders any resource by id exactly as its GET /v1 endpoint
// does, with the same loaders and renderers, and returns the row it read
// too (the ent entity with the edges its representation embeds: *ent.Order
// with its hub, lines and workflow): an event's data.object (and so a
// webhook's payload) is the REST representation, kept in one place. The
// service calls it inside the changing transaction, whose client
// ent.FromContext returns.
func Represent(ctx context.Context, id resourceid.ID) (row, rep any, err error) {
	c := ent.FromContext(ctx)
	switch id.Prefix() {
	case resourceid.Hub:
		return render(RenderHub)(c.Hub.Get(ctx, id))
	case resourceid.Part:
		return render(RenderPart)(c.Part.Get(ctx, id))
	case resourceid.Item:
		return render(RenderItem)(LoadItem(ctx, id))
	case resourceid.Order:
		return render(RenderOrder)(LoadOrder(ctx, id))
	case resourceid.OrderLine:
		return render(RenderOrderLine)(c.OrderLine.Get(ctx, id))
	case resourceid.TrackingEntry:
		return render(RenderTracking)(LoadTracking(ctx, id))
	case resourceid.Workflow:
		return render(RenderWorkflow)(c.Workflow.Get(ctx, id))
	}
	return nil, nil, apperr.Internal(fmt.Errorf("no REST representation for %s", id))
}

// render applies a renderer to a loaded row and returns both, or passes the
// error on (a missing row is a not-found error).
func render[T any, J any](f func(*T) J) func(*T, error) (any, any, error) {
	return func(v *T, err error) (any, any, error) {
		if ent.IsNotFound(err) {
			return nil, nil, apperr.NotFound("%v", err)
		}
		if err != nil {
			return nil, nil, err
		}
		return v, f(v), nil
	}
}

// RenderRow renders the rows the service builds from its own changes (an
// order line whose quantities an effect has just moved, an order after a
// transition, an item an allocation has just reserved from) as Represent
// renders them after reading them; ok is false for a type it does not
// render that way.
func RenderRow(row any) (rep any, ok bool) {
	switch r := row.(type) {
	case *ent.OrderLine:
		return RenderOrderLine(r), true
	case *ent.Order:
		return RenderOrder(r), true
	case *ent.Item:
		return RenderItem(r), true
	case *ent.TrackingEntry:
		return RenderTracking(r), true
	}
	return nil, false
}
