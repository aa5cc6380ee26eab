package filter

import (
	"context"
	"encoding/json"
	"errors"

	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/predicate"
	"logistics/ent/trackingentry"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// Match is a where filter of one resource type made ready to evaluate
// against the subjects of events: the one evaluation path of the event
// filters, shared by the webhook fan-out (in the event's own transaction)
// and the subscriptions (per batch read from the log). It asks the database,
// in one statement per matchChunk ids, which of the given resources the
// where input's own ent predicate selects — `id IN (…) AND <predicate>`,
// the very predicate a list with the same where: runs — so a resource
// matches an event filter exactly when it appears in the filtered list read
// through the same client.
type Match[T any] struct {
	where any    // the *ent.<T>WhereInput (nil: none)
	key   string // its canonical JSON, prefixed by the type: equal filters share a query
	empty bool   // no predicate: every resource matches, even a deleted one
	query func(ctx context.Context, c *ent.Client, ids []resourceid.ID, onlyIDs bool) ([]T, []resourceid.ID, error)
	id    func(T) resourceid.ID
}

// matchChunk bounds the ids of one statement (under SQLite's and
// PostgreSQL's limits on parameters, with the predicate's own).
const matchChunk = 500

// Key names the filter: two matches with the same key select the same rows.
func (m *Match[T]) Key() string { return m.key }

// Empty reports whether the filter selects every resource (no predicate).
func (m *Match[T]) Empty() bool { return m.empty }

// Where is the where input the match was made from (nil when empty), for the
// scope rule of relations (auth.RequireFilter).
func (m *Match[T]) Where() any { return m.where }

// Rows returns the resources among ids that the filter selects, read through
// c, by id.
func (m *Match[T]) Rows(ctx context.Context, c *ent.Client, ids []resourceid.ID) (map[resourceid.ID]T, error) {
	out := make(map[resourceid.ID]T, len(ids))
	for lo := 0; lo < len(ids); lo += matchChunk {
		rows, _, err := m.query(ctx, c, ids[lo:min(lo+matchChunk, len(ids))], false)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[m.id(r)] = r
		}
	}
	return out, nil
}

// Matching returns the ids among ids that the filter selects, read through c
// (the same statement as Rows, reading the ids only).
func (m *Match[T]) Matching(ctx context.Context, c *ent.Client, ids []resourceid.ID) (map[resourceid.ID]bool, error) {
	out := make(map[resourceid.ID]bool, len(ids))
	for lo := 0; lo < len(ids); lo += matchChunk {
		_, got, err := m.query(ctx, c, ids[lo:min(lo+matchChunk, len(ids))], true)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			out[id] = true
		}
	}
	return out, nil
}

// whereP is a generated where input: its predicate, or its type's
// ErrEmpty<T>WhereInput when it sets nothing.
type whereP[P any] interface{ P() (P, error) }

// newMatch makes a Match for where (nil: every resource). kind prefixes the
// key; empty is the type's ErrEmpty<T>WhereInput; run reads the resources
// among ids that p (nil: none) selects.
func newMatch[T any, P ~func(*entsql.Selector), W whereP[P]](kind string, where W, isNil bool, empty error,
	run func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p P, onlyIDs bool) ([]T, []resourceid.ID, error),
	id func(T) resourceid.ID,
) (*Match[T], error) {
	m := &Match[T]{key: kind + "|", empty: true, id: id}
	var p P
	if !isNil {
		var err error
		p, err = where.P()
		switch {
		case errors.Is(err, empty):
		case err != nil:
			return nil, apperr.Invalid("where", "%s", err.Error())
		default:
			b, err := json.Marshal(where)
			if err != nil {
				return nil, apperr.Invalid("where", "%s", err.Error())
			}
			m.where, m.key, m.empty = where, kind+"|"+string(b), false
		}
	}
	m.query = func(ctx context.Context, c *ent.Client, ids []resourceid.ID, onlyIDs bool) ([]T, []resourceid.ID, error) {
		return run(ctx, c, ids, p, onlyIDs)
	}
	return m, nil
}

// OrderMatch is the Match of an order filter.
func OrderMatch(where *ent.OrderWhereInput) (*Match[*ent.Order], error) {
	return newMatch("order", where, where == nil, ent.ErrEmptyOrderWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.Order, onlyIDs bool) ([]*ent.Order, []resourceid.ID, error) {
			q := c.Order.Query().Where(order.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(o *ent.Order) resourceid.ID { return o.ID })
}

// ItemMatch is the Match of an item filter.
func ItemMatch(where *ent.ItemWhereInput) (*Match[*ent.Item], error) {
	return newMatch("item", where, where == nil, ent.ErrEmptyItemWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.Item, onlyIDs bool) ([]*ent.Item, []resourceid.ID, error) {
			q := c.Item.Query().Where(item.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(i *ent.Item) resourceid.ID { return i.ID })
}

// TrackingEntryMatch is the Match of a tracking entry filter.
func TrackingEntryMatch(where *ent.TrackingEntryWhereInput) (*Match[*ent.TrackingEntry], error) {
	return newMatch("tracking_entry", where, where == nil, ent.ErrEmptyTrackingEntryWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.TrackingEntry, onlyIDs bool) ([]*ent.TrackingEntry, []resourceid.ID, error) {
			q := c.TrackingEntry.Query().Where(trackingentry.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(t *ent.TrackingEntry) resourceid.ID { return t.ID })
}

// HubMatch is the Match of a hub filter.
func HubMatch(where *ent.HubWhereInput) (*Match[*ent.Hub], error) {
	return newMatch("hub", where, where == nil, ent.ErrEmptyHubWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.Hub, onlyIDs bool) ([]*ent.Hub, []resourceid.ID, error) {
			q := c.Hub.Query().Where(hub.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(h *ent.Hub) resourceid.ID { return h.ID })
}

// PartMatch is the Match of a part filter.
func PartMatch(where *ent.PartWhereInput) (*Match[*ent.Part], error) {
	return newMatch("part", where, where == nil, ent.ErrEmptyPartWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.Part, onlyIDs bool) ([]*ent.Part, []resourceid.ID, error) {
			q := c.Part.Query().Where(part.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(x *ent.Part) resourceid.ID { return x.ID })
}

// OrderLineMatch is the Match of an order line filter.
func OrderLineMatch(where *ent.OrderLineWhereInput) (*Match[*ent.OrderLine], error) {
	return newMatch("order_line", where, where == nil, ent.ErrEmptyOrderLineWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.OrderLine, onlyIDs bool) ([]*ent.OrderLine, []resourceid.ID, error) {
			q := c.OrderLine.Query().Where(orderline.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(l *ent.OrderLine) resourceid.ID { return l.ID })
}

// WorkflowMatch is the Match of a workflow filter.
func WorkflowMatch(where *ent.WorkflowWhereInput) (*Match[*ent.Workflow], error) {
	return newMatch("workflow", where, where == nil, ent.ErrEmptyWorkflowWhereInput,
		func(ctx context.Context, c *ent.Client, ids []resourceid.ID, p predicate.Workflow, onlyIDs bool) ([]*ent.Workflow, []resourceid.ID, error) {
			q := c.Workflow.Query().Where(workflow.IDIn(ids...))
			if p != nil {
				q.Where(p)
			}
			return run(ctx, q.All, q.IDs, onlyIDs)
		}, func(w *ent.Workflow) resourceid.ID { return w.ID })
}

// run ends a match's query: its rows, or only their ids.
func run[T any](ctx context.Context, all func(context.Context) ([]T, error), ids func(context.Context) ([]resourceid.ID, error), onlyIDs bool) ([]T, []resourceid.ID, error) {
	if onlyIDs {
		got, err := ids(ctx)
		return nil, got, err
	}
	rows, err := all(ctx)
	return rows, nil, err
}
