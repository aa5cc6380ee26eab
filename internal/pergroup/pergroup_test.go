package pergroup_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/pergroup"
	"logistics/internal/resourceid"
)

// First returns what entgql.LimitPerRow (a ROW_NUMBER window) returns, by
// parent and in order — with ties on the first order column, parents with
// fewer rows than the limit or none, an eager load (WHERE exactly
// "order_id IN (…)") and a load with a filter of its own (the DISTINCT
// route) — on SQLite and PostgreSQL.
func TestFirstMatchesWindow(t *testing.T) {
	srv := apptest.New(t)
	do := func(method, path string, body map[string]any) map[string]any {
		t.Helper()
		resp := srv.Do(t, method, srv.URL+path, body, nil)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
		}
		var out map[string]any
		resp.JSON(t, &out)
		return out
	}
	do("POST", "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	do("POST", "/v1/parts", map[string]any{"sku": "P-1", "part_name": "Part"})
	ctx := srv.Ctx(environment.Production)
	c := srv.Env(environment.Production).DB.Client
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []resourceid.ID
	for i := range 5 {
		o := do("POST", "/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{map[string]any{"sku": "P-1", "quantity": 1}}})
		id := resourceid.ID(o["id"].(string))
		ids = append(ids, id)
		// 0, 2, 4, 6, 8 entries; every pair shares its time (ties), carriers alternate.
		var bulk []*ent.TrackingEntryCreate
		for j := range 2 * i {
			bulk = append(bulk, c.TrackingEntry.Create().SetOrderID(id).SetTrackingNumber(fmt.Sprintf("T%d-%d", i, j)).
				SetCarrier([]string{"DHL", "UPS"}[j%2]).SetStatus(trackingentry.StatusInTransit).
				SetOccurredAt(base.Add(time.Duration(j/2)*time.Hour)))
		}
		if len(bulk) > 0 {
			if err := c.TrackingEntry.CreateBulk(bulk...).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	var last string // the last statement, to see which route First took
	dc := ent.NewClient(ent.Driver(dialect.DebugWithContext(c.Driver(), func(_ context.Context, v ...any) { last = fmt.Sprint(v...) })))
	type limiter func(string, int, ...sql.Querier) func(*sql.Selector)
	load := func(t *testing.T, limit limiter, filter bool, fields bool) map[resourceid.ID][]string {
		orders, err := dc.Order.Query().Where(order.IDIn(ids...)).
			WithTrackingEntries(func(q *ent.TrackingEntryQuery) {
				if filter {
					q.Where(trackingentry.Carrier("DHL"))
				}
				if fields {
					q.Select(trackingentry.FieldTrackingNumber, trackingentry.FieldOccurredAt)
				}
				q.Modify(limit(trackingentry.FieldOrderID, 3,
					sql.DescExpr(sql.Expr(trackingentry.FieldOccurredAt)), sql.Expr(trackingentry.FieldID)))
			}).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[resourceid.ID][]string{}
		for _, o := range orders {
			for _, e := range o.Edges.TrackingEntries {
				got[o.ID] = append(got[o.ID], e.TrackingNumber+"@"+e.OccurredAt.UTC().Format(time.TimeOnly))
			}
		}
		return got
	}
	for _, filter := range []bool{false, true} {
		for _, fields := range []bool{false, true} {
			t.Run(fmt.Sprintf("filter=%v,fields=%v", filter, fields), func(t *testing.T) {
				want := load(t, entgql.LimitPerRow, filter, fields)
				got := load(t, pergroup.First, filter, fields)
				if values := strings.Contains(last, "VALUES"); values == filter {
					t.Errorf("VALUES route %v with filter %v: %s", values, filter, last)
				}
				if strings.Contains(last, "ROW_NUMBER") {
					t.Errorf("a window: %s", last)
				}
				// The window gives no order across parents; each parent's rows must match in order.
				for _, id := range ids {
					if !slices.Equal(got[id], want[id]) {
						t.Errorf("order %s: got %v, want %v", id, got[id], want[id])
					}
				}
				if n := len(want[ids[4]]); n != 3 {
					t.Fatalf("the window kept %d rows of 8", n)
				}
			})
		}
	}
}
