package view

import (
	stdsql "database/sql"
	"sort"
	"strings"
	"sync"
	"time"

	"logistics/ent"
	"logistics/ent/trackingentry"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
)

// REST's page of orders embeds every order's lines and newest tracking
// entries with all their columns, and renders them at once. Read as ent's
// entities, a line took an ent.OrderLine and an ent.Part (544 bytes, two
// allocations) and an entry an ent.TrackingEntry and an ent.Hub, made for
// the page and dropped once it was rendered: on W3 a fifth of the bytes a
// REST page allocated, every byte fresh memory, and on this service fresh
// memory is what a request's time goes to (a cache miss per 64 bytes
// written). OrderRead.LineRows and OrderRead.TrackingRows
// read them instead as rows of one slice for the page, in memory earlier
// pages used (a sync.Pool), given back by Release once rendered.

// A Line is an order's line with its part's sku and name and every other
// column, as a row (OrderRead.LineRows).
type Line struct {
	ID, OrderID, PartID                          resourceid.ID
	SKU, PartName                                string
	Quantity, AllocatedQuantity, ShippedQuantity decimal.Decimal
	Revision                                     int
	CreatedAt, UpdatedAt                         time.Time
	place                                        int // its order's index in PageWith's orders
}

// A Tracking is one of an order's newest tracking entries with every
// column and its hub's code, as a row (OrderRead.TrackingRows). HubID is empty
// when the entry has no hub.
type Tracking struct {
	ID, OrderID                      resourceid.ID
	TrackingNumber, Carrier          string
	Status                           trackingentry.Status
	Location, Description            string
	HubID                            resourceid.ID
	HubCode                          string
	Revision                         int
	OccurredAt, CreatedAt, UpdatedAt time.Time
	place                            int
}

// kind says how rowsQuery scans rows of T and orders them.
type kind[T any] struct {
	// dest appends the destinations of every column of the row's
	// statement, in order; nulls takes what may be NULL.
	dest func(r *T, dest []any, nulls *[2]stdsql.NullString) []any
	// done reads what dest left in nulls.
	done func(r *T, nulls *[2]stdsql.NullString)
	// order is the id of the row's order and where its place in the page
	// goes.
	order func(r *T) (resourceid.ID, *int)
	// compare is the rows' order: by place, then within an order.
	compare func(a, b *T) int
	// pool holds the slices of earlier pages.
	pool *sync.Pool
}

// Rows are the rows of a page of orders of one kind (Line, Tracking),
// read into memory earlier pages used.
type Rows[T any] struct {
	// Of holds the rows of PageWith's orders[i] at i: lines by id,
	// tracking entries newest first.
	Of   [][]T
	all  *[]T
	pool *sync.Pool
}

// Release gives the rows' memory back for another page's; neither Of nor
// its rows may be used after (what was copied from them may: their
// strings are their own).
func (r *Rows[T]) Release() {
	if r.all != nil && cap(*r.all) <= maxPooledRows {
		*r.all = (*r.all)[:0]
		r.pool.Put(r.all)
	}
	r.Of, r.all, r.pool = nil, nil, nil
}

// maxPooledRows bounds the slices kept for the next page (a page of 500
// orders with 8 lines each fits); a bigger one is left to the collector.
const maxPooledRows = 4096

// rowsQuery reads text's rows of kind k for the orders whose ids are args
// (not empty) into out: out.Of[i] the rows of the order at place i (place:
// each id's index in args), in k's order.
func rowsQuery[T any](k kind[T], text string, args []any, place map[resourceid.ID]int, out *Rows[T]) query {
	return query{text: text, args: args, scan: func(rows rowScanner) error {
		out.Release()
		out.pool = k.pool
		if p, ok := k.pool.Get().(*[]T); ok {
			out.all = p
		} else {
			out.all = new([]T)
		}
		all := (*out.all)[:0]
		defer func() { *out.all = all }()
		dest := make([]any, 0, 13)
		var nulls [2]stdsql.NullString
		for rows.Next() {
			var zero T
			all = append(all, zero)
			r := &all[len(all)-1]
			if err := rows.Scan(k.dest(r, dest[:0], &nulls)...); err != nil {
				return err
			}
			k.done(r, &nulls)
			id, at := k.order(r)
			i, ok := place[id]
			if !ok {
				all = all[:len(all)-1]
				continue
			}
			*at = i
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// SQLite answers an order's rows together and nearly always in
		// order; PostgreSQL's plan may mix them.
		less := func(i, j int) bool { return k.compare(&all[i], &all[j]) < 0 }
		for i := 1; i < len(all); i++ {
			if less(i, i-1) {
				sort.Slice(all, less)
				break
			}
		}
		out.Of = make([][]T, len(args))
		for start := 0; start < len(all); {
			_, at := k.order(&all[start])
			end := start + 1
			for end < len(all) {
				if _, next := k.order(&all[end]); *next != *at {
					break
				}
				end++
			}
			out.Of[*at] = all[start:end:end]
			start = end
		}
		return nil
	}}
}

var lineRows = kind[Line]{
	// The columns of buildLines with AllLineColumns, in its order.
	dest: func(l *Line, dest []any, _ *[2]stdsql.NullString) []any {
		return append(dest, (*string)(&l.ID), (*string)(&l.OrderID), (*int64)(&l.Quantity),
			(*int64)(&l.AllocatedQuantity), (*int64)(&l.ShippedQuantity), &l.SKU, &l.PartName,
			(*string)(&l.PartID), &l.Revision, Time{T: &l.CreatedAt}, Time{T: &l.UpdatedAt})
	},
	done:  func(*Line, *[2]stdsql.NullString) {},
	order: func(l *Line) (resourceid.ID, *int) { return l.OrderID, &l.place },
	// By the order's place in the page, then by id.
	compare: func(a, b *Line) int {
		if c := a.place - b.place; c != 0 {
			return c
		}
		return strings.Compare(string(a.ID), string(b.ID))
	},
	pool: new(sync.Pool),
}

var trackingRows = kind[Tracking]{
	// The columns of trackingColumns with AllTrackingColumns, in its
	// order; the hub's id and code in nulls.
	dest: func(t *Tracking, dest []any, nulls *[2]stdsql.NullString) []any {
		return append(dest, (*string)(&t.ID), (*string)(&t.OrderID), &t.TrackingNumber, &t.Carrier, (*string)(&t.Status),
			&t.Location, Time{T: &t.OccurredAt}, Time{T: &t.CreatedAt}, Time{T: &t.UpdatedAt},
			&t.Revision, &nulls[0], &nulls[1], &t.Description)
	},
	done: func(t *Tracking, nulls *[2]stdsql.NullString) {
		t.HubID, t.HubCode = resourceid.ID(nulls[0].String), nulls[1].String
	},
	order: func(t *Tracking) (resourceid.ID, *int) { return t.OrderID, &t.place },
	// By the order's place in the page, then newest first (ties by id, as
	// newestFirst).
	compare: func(a, b *Tracking) int {
		if c := a.place - b.place; c != 0 {
			return c
		}
		if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
			return c
		}
		return strings.Compare(string(a.ID), string(b.ID))
	},
	pool: new(sync.Pool),
}

// LineOf is l as a row, with its part's sku and name when its part edge
// is loaded: the one shape the representations of a line are made from.
func LineOf(l *ent.OrderLine) Line {
	out := Line{
		ID: l.ID, OrderID: l.OrderID, PartID: l.PartID, Quantity: l.Quantity,
		AllocatedQuantity: l.AllocatedQuantity, ShippedQuantity: l.ShippedQuantity,
		Revision: l.Revision, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
	if p := l.Edges.Part; p != nil {
		out.SKU, out.PartName = p.Sku, p.PartName
	}
	return out
}

// TrackingOf is t as a row, with its hub's code when its hub edge is
// loaded.
func TrackingOf(t *ent.TrackingEntry) Tracking {
	out := Tracking{
		ID: t.ID, OrderID: t.OrderID, TrackingNumber: t.TrackingNumber, Carrier: t.Carrier, Status: t.Status,
		Location: t.Location, Description: t.Description, Revision: t.Revision,
		OccurredAt: t.OccurredAt, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
	if t.HubID != nil {
		out.HubID = *t.HubID
	}
	if h := t.Edges.Hub; h != nil {
		out.HubCode = h.Code
	}
	return out
}
