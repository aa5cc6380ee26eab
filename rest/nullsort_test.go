package rest_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/trackingentry"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
)

// sortRow is a row of a generated set: its id and its sort value (nil: NULL).
type sortRow struct {
	id string
	at *time.Time
}

// nullsLast is the order the sorts promise: the rows with a value by value
// (descending with desc), the rows without last, the id ascending breaking
// ties in both.
func nullsLast(rows []sortRow, desc bool) []string {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b sortRow) int {
		switch {
		case a.at == nil && b.at == nil:
		case a.at == nil:
			return 1
		case b.at == nil:
			return -1
		default:
			c := a.at.Compare(*b.at)
			if desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

// sortSet generates n items, orders and tracking entries whose sort values
// are NULL for every fourth row (none for tracking entries, whose
// occurred_at is NOT NULL) and otherwise one of five instants, so that
// every page boundary falls in ties and the null boundary is crossed.
type sortSet struct {
	hub, part, workflow resourceid.ID
	items, orders, trk  []sortRow
	mu                  sync.Mutex
	n                   int
}

var sortBase = time.Date(2030, 3, 1, 8, 0, 0, 0, time.UTC)

func (g *sortSet) value(i int, nullable bool) *time.Time {
	if nullable && i%4 == 0 {
		return nil
	}
	at := sortBase.Add(time.Duration(i%5) * time.Hour)
	return &at
}

func newSortSet(t *testing.T, ctx context.Context, n int) *sortSet {
	t.Helper()
	c := ent.FromContext(ctx)
	g := &sortSet{}
	h, err := c.Hub.Create().SetCode("NLS1").SetName("Nulls").SetCountry("NL").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Part.Create().SetSku("NLS-1").SetPartName("nulls").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Workflow.Query().First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.hub, g.part, g.workflow = h.ID, p.ID, w.ID
	for range n {
		g.add(t, ctx)
	}
	return g
}

// add inserts one row of each kind; safe to call concurrently.
func (g *sortSet) add(t *testing.T, ctx context.Context) {
	g.mu.Lock()
	i := g.n
	g.n++
	g.mu.Unlock()
	c := ent.FromContext(ctx)
	it, err := c.Item.Create().SetPartID(g.part).SetHubID(g.hub).SetQuantity(decimal.Decimal(1000)).SetNillableExpiresAt(g.value(i, true)).Save(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	o, err := c.Order.Create().SetHubID(g.hub).SetWorkflowID(g.workflow).SetStatus("open").SetNillableDueAt(g.value(i, true)).Save(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	tr, err := c.TrackingEntry.Create().SetOrderID(o.ID).SetTrackingNumber("TN").SetCarrier("DHL").
		SetStatus(trackingentry.StatusInTransit).SetOccurredAt(*g.value(i, false)).Save(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.items = append(g.items, sortRow{string(it.ID), it.ExpiresAt})
	g.orders = append(g.orders, sortRow{string(o.ID), o.DueAt})
	g.trk = append(g.trk, sortRow{string(tr.ID), &tr.OccurredAt})
}

func (g *sortSet) rows(kind string) []sortRow {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch kind {
	case "items":
		return slices.Clone(g.items)
	case "orders":
		return slices.Clone(g.orders)
	}
	return slices.Clone(g.trk)
}

var sortLists = []struct{ kind, rest, gql, field string }{
	{"items", "/v1/items", "items", "expires_at"},
	{"orders", "/v1/orders", "orders", "due_at"},
	{"tracking", "/v1/tracking-entries", "trackingEntries", "occurred_at"},
}

// gqlWalk reads every page of a root connection ordered by field, forward
// (first/after) or backward (last/before, the rows then reversed into the
// list's order), and returns the ids in the list's order.
func gqlWalk(t *testing.T, s *apptest.Server, list, field string, desc, backward bool, size int, between func()) []string {
	t.Helper()
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	page, cursor, pos := "first", "after", "endCursor"
	more := "hasNextPage"
	if backward {
		page, cursor, pos, more = "last", "before", "startCursor", "hasPreviousPage"
	}
	q := fmt.Sprintf(`query($c: Cursor) { %s(%s: %d, %s: $c, orderBy: [{field: %s, direction: %s}]) { edges { node { id } } pageInfo { %s %s } } }`,
		list, page, size, cursor, strings.ToUpper(field), dir, more, pos)
	var ids []string
	var c any
	for range 1000 {
		var out map[string]struct {
			Edges []struct {
				Node struct{ ID string } `json:"node"`
			} `json:"edges"`
			PageInfo map[string]any `json:"pageInfo"`
		}
		s.MustGraphQL(t, environment.Production, q, map[string]any{"c": c}, &out)
		conn := out[list]
		var got []string
		for _, e := range conn.Edges {
			got = append(got, e.Node.ID)
		}
		if backward {
			ids = append(got, ids...)
		} else {
			ids = append(ids, got...)
		}
		if conn.PageInfo[more] != true {
			return ids
		}
		if between != nil {
			between()
		}
		c = conn.PageInfo[pos]
	}
	t.Fatal("too many pages")
	return nil
}

// Keyset pages over the nullable sorts (items by expires_at, orders by
// due_at; tracking entries by occurred_at, NOT NULL, read the same way):
// every page of a set with nulls and ties, in both directions, over REST and
// GraphQL (forward and backward), is the promised order exactly — the nulls
// last — and, with rows inserted between the pages (values before and after
// the cursor, and nulls), every row that existed at the start is seen once
// and no row twice.
func TestKeysetPagesOverNullableSorts(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Production)
	g := newSortSet(t, ctx, 43)
	for _, l := range sortLists {
		for _, desc := range []bool{false, true} {
			sort := l.field
			if desc {
				sort = "-" + sort
			}
			want := nullsLast(g.rows(l.kind), desc)
			t.Run(l.kind+" sort="+sort, func(t *testing.T) {
				for _, size := range []int{1, 4, 7, 500} {
					got := walk(t, s, s.URL+l.rest+"?limit="+fmt.Sprint(size)+"&sort="+url.QueryEscape(sort)+"&hub_id="+string(g.hub), nil)
					if l.kind == "tracking" {
						got = walk(t, s, s.URL+l.rest+"?limit="+fmt.Sprint(size)+"&sort="+url.QueryEscape(sort), nil)
						got = keep(got, want)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("REST limit=%d:\n got %v\nwant %v", size, got, want)
					}
				}
				for _, backward := range []bool{false, true} {
					for _, size := range []int{1, 6} {
						got := keep(gqlWalk(t, s, l.gql, l.field, desc, backward, size, nil), want)
						if !slices.Equal(got, want) {
							t.Fatalf("GraphQL backward=%v size=%d:\n got %v\nwant %v", backward, size, got, want)
						}
					}
				}
			})
		}
	}
	// The same walks while rows are inserted between the pages.
	for _, l := range sortLists {
		for _, desc := range []bool{false, true} {
			sort := l.field
			if desc {
				sort = "-" + sort
			}
			t.Run("inserts "+l.kind+" sort="+sort, func(t *testing.T) {
				initial := g.rows(l.kind)
				var wg sync.WaitGroup
				between := func() {
					wg.Add(1)
					go func() { defer wg.Done(); g.add(t, ctx) }()
				}
				check := func(how string, ids []string) {
					t.Helper()
					seen := map[string]bool{}
					for _, id := range ids {
						if seen[id] {
							t.Fatalf("%s: %s twice", how, id)
						}
						seen[id] = true
					}
					for _, r := range initial {
						if !seen[r.id] {
							t.Fatalf("%s: never saw %s", how, r.id)
						}
					}
				}
				check("REST", walk(t, s, s.URL+l.rest+"?limit=5&sort="+url.QueryEscape(sort), between))
				wg.Wait()
				check("GraphQL", gqlWalk(t, s, l.gql, l.field, desc, false, 5, between))
				wg.Wait()
				check("GraphQL backward", gqlWalk(t, s, l.gql, l.field, desc, true, 5, between))
				wg.Wait()
			})
		}
	}
}

// keep returns the ids of got that are in want, in got's order: a list may
// hold rows of other sets (the built-in data, tracking entries of any hub).
func keep(got, want []string) []string {
	in := map[string]bool{}
	for _, id := range want {
		in[id] = true
	}
	var out []string
	for _, id := range got {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}

// A nested connection ordered by due_at (one statement per page of every
// parent) has the same order, nulls last, and its cursors walk it.
func TestNestedConnectionNullsLast(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Production)
	g := newSortSet(t, ctx, 23)
	for _, desc := range []bool{false, true} {
		dir := "ASC"
		if desc {
			dir = "DESC"
		}
		want := nullsLast(g.rows("orders"), desc)
		var got []string
		var c any
		for range 100 {
			var out struct {
				Node struct {
					Orders struct {
						Edges []struct {
							Node struct{ ID string } `json:"node"`
						} `json:"edges"`
						PageInfo struct {
							HasNextPage bool
							EndCursor   string
						} `json:"pageInfo"`
					} `json:"orders"`
				} `json:"node"`
			}
			s.MustGraphQL(t, environment.Production, `query($id: ID!, $c: Cursor) { node(id: $id) { ... on Hub { orders(first: 4, after: $c, orderBy: {field: DUE_AT, direction: `+dir+`}) { edges { node { id } } pageInfo { hasNextPage endCursor } } } } }`,
				map[string]any{"id": g.hub, "c": c}, &out)
			for _, e := range out.Node.Orders.Edges {
				got = append(got, e.Node.ID)
			}
			if !out.Node.Orders.PageInfo.HasNextPage {
				break
			}
			c = out.Node.Orders.PageInfo.EndCursor
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %v\nwant %v", dir, got, want)
		}
	}
}

// A nullable field sorts only as the first key (REST 400, GraphQL an error
// with code BAD_USER_INPUT), and a cursor whose value is null where the
// sort key cannot be is refused.
func TestNullableSortOnlyFirst(t *testing.T) {
	f := newFixture(t)
	for _, u := range []string{"/v1/items?sort=status,expires_at", "/v1/orders?sort=priority,-due_at"} {
		if r := f.s.Do(t, "GET", f.s.URL+u, nil, nil); r.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", u, r.StatusCode, r.Body)
		}
	}
	r := f.s.GraphQL(t, environment.Production, `{ orders(first: 2, orderBy: [{field: PRIORITY, direction: ASC}, {field: DUE_AT, direction: ASC}]) { edges { node { id } } } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Code() != "BAD_USER_INPUT" {
		t.Errorf("GraphQL DUE_AT second: %+v", r.Errors)
	}
	// Other sorts keep working, DUE_AT first with a second key too.
	ids := walk(t, f.s, f.s.URL+"/v1/orders?limit=1&sort=-due_at,priority", nil)
	if len(ids) != 3 {
		t.Errorf("sort=-due_at,priority walked %v", ids)
	}
}
