package ent_test

import (
	"context"
	"fmt"
	"testing"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
)

// TestInlinedEdgesMatchEagerLoads pages through the demo data twice, with
// to-one edges read as correlated subqueries of the page (inline.tmpl, on
// PostgreSQL) and with ent's own eager loads, and requires the same edges
// and the expected statements: one column of each type that can be inlined
// (string, enum, decimal, boolean, nullable float), a nested edge (order →
// lines → part, two columns: eager-loaded), and an optional edge (tracking
// entry → hub, absent on some rows).
func TestInlinedEdgesMatchEagerLoads(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	env := srv.Env(environment.Sandbox)
	ctx := context.Background()
	if _, err := demodata.Load(ctx, env.DB, 0.005); err != nil {
		t.Fatal(err)
	}
	c := env.DB.Client
	pg := apptest.Postgres()
	// statements runs f and returns how many statements it sent.
	statements := func(f func()) int64 {
		counter.Reset()
		f()
		return counter.Count()
	}
	first := 200
	// want is the statement count with inlining: fewer on PostgreSQL only.
	want := func(inlined, eager int64) int64 {
		if pg {
			return inlined
		}
		return eager
	}

	for _, cols := range [][2]string{
		{part.FieldSku, hub.FieldCode},
		{part.FieldUnit, hub.FieldKind},
		{part.FieldUnitWeightKg, hub.FieldLatitude},
		{part.FieldHazardous, hub.FieldActive},
		{part.FieldID, hub.FieldID},
	} {
		items := func(ctx context.Context) []*ent.Item {
			conn, err := c.Item.Query().
				WithPart(func(q *ent.PartQuery) { q.Select(part.FieldID, cols[0]) }).
				WithHub(func(q *ent.HubQuery) { q.Select(cols[1]) }).
				Paginate(ent.WithoutCount(ctx), nil, &first, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out []*ent.Item
			for _, e := range conn.Edges {
				out = append(out, e.Node)
			}
			return out
		}
		var inlined, loaded []*ent.Item
		// part.id alone is the foreign key: nothing to read, ent loads it.
		inlinedWant := want(1, 3)
		if cols[0] == part.FieldID {
			inlinedWant = 3
		}
		if n := statements(func() { inlined = items(ctx) }); n != inlinedWant {
			t.Errorf("items with part.%s, hub.%s: %d statements, want %d", cols[0], cols[1], n, inlinedWant)
		}
		if n := statements(func() { loaded = items(ent.WithoutInlinedEdges(ctx)) }); n != 3 {
			t.Errorf("items with eager-loaded part.%s, hub.%s: %d statements, want 3", cols[0], cols[1], n)
		}
		if len(inlined) == 0 || len(inlined) != len(loaded) {
			t.Fatalf("%d items inlined, %d loaded", len(inlined), len(loaded))
		}
		for i := range inlined {
			if p, l := mustEdge(t, inlined[i].Edges.PartOrErr), mustEdge(t, loaded[i].Edges.PartOrErr); !same(p, l) {
				t.Fatalf("item %s: part inlined %v, loaded %v", inlined[i].ID, p, l)
			}
			if h, l := mustEdge(t, inlined[i].Edges.HubOrErr), mustEdge(t, loaded[i].Edges.HubOrErr); !same(h, l) {
				t.Fatalf("item %s: hub inlined %v, loaded %v", inlined[i].ID, h, l)
			}
		}
	}

	orders := func(ctx context.Context) []*ent.Order {
		conn, err := c.Order.Query().
			WithHub(func(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }).
			WithLines(func(q *ent.OrderLineQuery) {
				q.Select(orderline.FieldID, orderline.FieldQuantity, orderline.FieldPartID, orderline.FieldOrderID).
					WithPart(func(q *ent.PartQuery) { q.Select(part.FieldSku, part.FieldPartName) })
			}).
			WithTrackingEntries(func(q *ent.TrackingEntryQuery) {
				q.WithHub(func(q *ent.HubQuery) { q.Select(hub.FieldCode) })
			}).
			Paginate(ent.WithoutCount(ctx), nil, &first, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []*ent.Order
		for _, e := range conn.Edges {
			out = append(out, e.Node)
		}
		return out
	}
	var io, lo []*ent.Order
	if n, w := statements(func() { io = orders(ctx) }), want(4, 6); n != w {
		t.Errorf("orders, lines, tracking entries with inlined to-one edges: %d statements, want %d", n, w)
	}
	if n := statements(func() { lo = orders(ent.WithoutInlinedEdges(ctx)) }); n != 6 {
		t.Errorf("orders, lines, tracking entries with eager-loaded to-one edges: %d statements, want 6", n)
	}
	if len(io) == 0 || len(io) != len(lo) {
		t.Fatalf("%d orders inlined, %d loaded", len(io), len(lo))
	}
	withHub, withoutHub := 0, 0
	for i := range io {
		if !same(mustEdge(t, io[i].Edges.HubOrErr), mustEdge(t, lo[i].Edges.HubOrErr)) {
			t.Fatalf("order %s: hubs differ", io[i].ID)
		}
		il, ll := mustEdge(t, io[i].Edges.LinesOrErr), mustEdge(t, lo[i].Edges.LinesOrErr)
		if len(il) != len(ll) {
			t.Fatalf("order %s: %d lines inlined, %d loaded", io[i].ID, len(il), len(ll))
		}
		for j := range il {
			if !same(mustEdge(t, il[j].Edges.PartOrErr), mustEdge(t, ll[j].Edges.PartOrErr)) {
				t.Fatalf("line %s: parts differ", il[j].ID)
			}
		}
		it, lt := mustEdge(t, io[i].Edges.TrackingEntriesOrErr), mustEdge(t, lo[i].Edges.TrackingEntriesOrErr)
		for j := range it {
			ih, lh := mustEdge(t, it[j].Edges.HubOrErr), mustEdge(t, lt[j].Edges.HubOrErr)
			if !same(ih, lh) {
				t.Fatalf("tracking entry %s: hubs differ: %v, %v", it[j].ID, ih, lh)
			}
			if ih == nil {
				withoutHub++
			} else {
				withHub++
			}
		}
	}
	if withHub == 0 || withoutHub == 0 {
		t.Fatalf("tracking entries with a hub: %d, without: %d; the data must have both", withHub, withoutHub)
	}
}

// same compares two loaded rows by every field (ent's String lists them);
// their clients' configuration holds functions, which DeepEqual never equates.
func same(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// mustEdge unwraps an edge accessor: the edge must count as loaded (an
// optional edge that is absent is the zero value).
func mustEdge[T any](t *testing.T, get func() (T, error)) T {
	t.Helper()
	v, err := get()
	if err != nil && !ent.IsNotFound(err) {
		t.Fatal(err)
	}
	return v
}
