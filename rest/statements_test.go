package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"logistics/internal/apptest"
)

// TestListStatementsAreConstant counts SQL statements per list request: the
// same for a page of 5 as for a page of 50 (eager loading, no N+1), and no
// COUNT (has_more comes from fetching one row more).
func TestListStatementsAreConstant(t *testing.T) {
	var counter apptest.StatementCounter
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	post := func(path string, body map[string]any) map[string]any {
		t.Helper()
		resp := srv.Do(t, http.MethodPost, srv.URL+path, body, nil)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, resp.Body)
		}
		var out map[string]any
		resp.JSON(t, &out)
		return out
	}
	post("/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	for i := range 60 {
		sku := fmt.Sprintf("P-%02d", i)
		post("/v1/parts", map[string]any{"sku": sku, "part_name": "Hex bolt " + sku})
		post("/v1/items", map[string]any{"sku": sku, "hub": "AMS1", "quantity": 100 + i})
		o := post("/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{map[string]any{"sku": sku, "quantity": 2}}})
		for j := range 4 {
			post("/v1/tracking-entries", map[string]any{"order_id": o["id"], "tracking_number": "T" + sku, "carrier": "DHL", "status": "in_transit",
				"occurred_at": fmt.Sprintf("2026-01-0%dT10:00:00Z", j+1)})
		}
	}
	// What every request costs before the handler (authentication).
	srv.Do(t, http.MethodGet, srv.URL+"/v1/status", nil, nil)
	var overhead int64
	for try := range 3 { // the fewest, as for the lists below
		counter.Reset()
		srv.Do(t, http.MethodGet, srv.URL+"/v1/status", nil, nil)
		if c := counter.Count(); try == 0 || c < overhead {
			overhead = c
		}
	}

	for _, tc := range []struct {
		path string
		max  int64
	}{
		{"/v1/items?quantity>100&hub[]=AMS1&limit=%d", 3}, // items, their parts, their hubs
		{"/v1/parts?part_name=*bolt*&limit=%d", 1},
		// orders, hubs, the 3 newest tracking entries of each, lines with
		// their parts (one join); workflow versions come from a cache.
		{"/v1/orders?limit=%d", 4},
	} {
		counts := map[int]int64{}
		for _, n := range []int{5, 50} {
			// The counter also sees the server's background statements
			// (the event sequencer's poll, an expired key cache's read):
			// they only add, so the fewest of three requests is the
			// request's own.
			for try := range 3 {
				counter.Reset()
				resp := srv.Do(t, http.MethodGet, srv.URL+fmt.Sprintf(tc.path, n), nil, nil)
				if c := counter.Count() - overhead; try == 0 || c < counts[n] {
					counts[n] = c
				}
				var page struct {
					Data    []map[string]any
					HasMore bool `json:"has_more"`
				}
				resp.JSON(t, &page)
				if resp.StatusCode != http.StatusOK || len(page.Data) != n || !page.HasMore {
					t.Fatalf("%s: %d, %d rows, has_more %v", fmt.Sprintf(tc.path, n), resp.StatusCode, len(page.Data), page.HasMore)
				}
			}
		}
		if counts[5] != counts[50] || counts[50] > tc.max {
			t.Errorf("%s: statements %v, want the same for both pages and at most %d", tc.path, counts, tc.max)
		}
	}
	// Orders embed their lines' parts and their 3 newest tracking entries.
	var page struct {
		Data []struct {
			Lines []struct {
				Part struct {
					SKU      string `json:"sku"`
					PartName string `json:"part_name"`
				}
			}
			LatestTracking []struct {
				OccurredAt string `json:"occurred_at"`
			} `json:"latest_tracking"`
		}
	}
	resp := srv.Do(t, http.MethodGet, srv.URL+"/v1/orders?limit=7", nil, nil)
	resp.JSON(t, &page)
	if len(page.Data) != 7 {
		t.Fatalf("%d orders", len(page.Data))
	}
	for _, o := range page.Data {
		if len(o.Lines) != 1 || o.Lines[0].Part.SKU == "" || o.Lines[0].Part.PartName != "Hex bolt "+o.Lines[0].Part.SKU {
			t.Fatalf("lines without their part: %+v\n%s", o.Lines, resp.Body)
		}
		if len(o.LatestTracking) != 3 || o.LatestTracking[0].OccurredAt != "2026-01-04T10:00:00Z" ||
			o.LatestTracking[1].OccurredAt != "2026-01-03T10:00:00Z" || o.LatestTracking[2].OccurredAt != "2026-01-02T10:00:00Z" {
			t.Fatalf("latest tracking: %+v", o.LatestTracking)
		}
	}
}
