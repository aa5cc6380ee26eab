package rest

import (
	"context"
	"fmt"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// Representer renders any resource by id exactly as its GET /v1 endpoint
// does, with the same loaders and renderers: an event's data.object (and so
// a webhook's payload) is the REST representation, kept in one place. The
// app gives it to the service (Service.SetRepresenter); the service calls it
// inside the changing transaction, whose client ent.FromContext returns.
func Representer(svc *service.Service) service.Representer {
	d := Deps{Service: svc}
	return func(ctx context.Context, id resourceid.ID) (any, any, error) {
		c := ent.FromContext(ctx)
		switch id.Prefix() {
		case resourceid.Hub:
			return render(renderHub)(c.Hub.Get(ctx, id))
		case resourceid.Part:
			return render(renderPart)(c.Part.Get(ctx, id))
		case resourceid.Item:
			return render(renderItem)(loadItem(ctx, id))
		case resourceid.Order:
			return render(renderOrder)(d.loadOrder(ctx, id))
		case resourceid.OrderLine:
			return render(renderOrderLine)(c.OrderLine.Get(ctx, id))
		case resourceid.TrackingEntry:
			return render(renderTracking)(loadTracking(ctx, id))
		case resourceid.Workflow:
			return render(renderWorkflow)(c.Workflow.Get(ctx, id))
		}
		return nil, nil, apperr.Internal(fmt.Errorf("no REST representation for %s", id))
	}
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

// RowRenderer renders the rows the service builds from its own changes (an
// order line whose quantities an effect has just moved, an order after a
// transition, an item an allocation has just reserved from) as Representer
// renders them after reading them.
func RowRenderer(row any) (any, bool) {
	switch r := row.(type) {
	case *ent.OrderLine:
		return renderOrderLine(r), true
	case *ent.Order:
		return renderOrder(r), true
	case *ent.Item:
		return renderItem(r), true
	case *ent.TrackingEntry:
		return renderTracking(r), true
	}
	return nil, false
}
