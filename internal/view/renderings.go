package view

import (
	"context"
	"sync"

	"logistics/internal/resourceid"
)

// Renderings keeps, for one request, the row each resource's event was last
// rendered from: the resource as its transaction left it, read inside that
// transaction after its last change, or built from that change (an
// effect's line, a transition's order). The transport answers a write with it instead of
// reading the resource again after the commit (four statements for an
// order). Only renderings of a resource after a change are kept (created,
// updated, an effect's), never a snapshot taken before one.
type Renderings struct {
	mu   sync.Mutex
	rows map[resourceid.ID]any
}

type renderingsKey struct{}

// WithRenderings returns a context whose transactions keep their events'
// renderings in the returned Renderings.
func WithRenderings(ctx context.Context) (context.Context, *Renderings) {
	r := &Renderings{}
	return context.WithValue(ctx, renderingsKey{}, r), r
}

// Row returns the row id's event was last rendered from, if any. Read it only
// once the transaction has committed (the service call returned no error).
func (r *Renderings) Row(id resourceid.ID) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.rows[id]
	return v, ok
}

func (r *Renderings) keep(id resourceid.ID, row any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[resourceid.ID]any{}
	}
	r.rows[id] = row
}

// Keep keeps row as the rendering of id for the request's Renderings, when
// ctx has one (WithRenderings): the service calls it after it rendered id's
// event object from the resource as its transaction leaves it.
func Keep(ctx context.Context, id resourceid.ID, row any) {
	if r, ok := ctx.Value(renderingsKey{}).(*Renderings); ok {
		r.keep(id, row)
	}
}
