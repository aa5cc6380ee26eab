package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/rest"
)

// An order embeds its lines read by a hand-written join (rest/orderembed.go):
// each embedded line must be the line GET /v1/order-lines/{id} returns — every
// field, after an update changed its revision and times — plus its part, in
// line id order (whatever the order rows are stored in), on the order in a
// list as on its own.
func TestEmbeddedLinesMatchLines(t *testing.T) {
	srv := apptest.New(t)
	do := func(method, path string, body map[string]any, want int) map[string]any {
		t.Helper()
		resp := srv.Do(t, method, srv.URL+path, body, nil)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
		}
		var out map[string]any
		resp.JSON(t, &out)
		return out
	}
	do("POST", "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	var lines []any
	skuOf := map[any]string{} // part id → sku
	for i := range 3 {
		sku := fmt.Sprintf("P-%d", i)
		p := do("POST", "/v1/parts", map[string]any{"sku": sku, "part_name": "Part " + sku}, http.StatusCreated)
		skuOf[p["id"]] = sku
		lines = append(lines, map[string]any{"sku": sku, "quantity": 1.5 + float64(i)})
	}
	o := do("POST", "/v1/orders", map[string]any{"hub": "AMS1", "lines": lines}, http.StatusCreated)
	embedded := o["lines"].([]any)
	first := embedded[0].(map[string]any)["id"].(string)
	do("PATCH", "/v1/order-lines/"+first, map[string]any{"quantity": 7.125}, http.StatusOK)
	if !apptest.Postgres() {
		// The first line goes last in the table, and so in the index on
		// order_lines.order_id: the lines are read in that order and must
		// still come out in id order. (On PostgreSQL the PATCH above moved
		// it already: an update writes a new row version.)
		db := srv.Env(environment.Production).DB.SQL
		if _, err := db.Exec(`UPDATE order_lines SET rowid = (SELECT max(rowid) + 1 FROM order_lines) WHERE id = ?`, first); err != nil {
			t.Fatal(err)
		}
	}

	for _, path := range []string{"/v1/orders/" + o["id"].(string), "/v1/orders?limit=10"} {
		got := do("GET", path, nil, http.StatusOK)
		order := got
		if data, ok := got["data"].([]any); ok {
			order = data[0].(map[string]any)
		}
		embedded := order["lines"].([]any)
		if len(embedded) != 3 {
			t.Fatalf("%s: %d lines", path, len(embedded))
		}
		prev := ""
		for i, e := range embedded {
			line := maps.Clone(e.(map[string]any))
			part := line["part"].(map[string]any)
			delete(line, "part")
			alone := do("GET", "/v1/order-lines/"+line["id"].(string), nil, http.StatusOK)
			if !maps.EqualFunc(line, alone, func(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
				t.Errorf("%s: embedded line %d\n%v\nGET /v1/order-lines gives\n%v", path, i, line, alone)
			}
			if sku := skuOf[line["part_id"]]; part["id"] != line["part_id"] || part["sku"] != sku || part["part_name"] != "Part "+sku {
				t.Errorf("%s: line %d part %v", path, i, part)
			}
			if id := line["id"].(string); id <= prev {
				t.Errorf("%s: lines not in id order: %s after %s", path, id, prev)
			} else {
				prev = id
			}
		}
	}
}

// A page of orders reads what its orders embed as rows for the whole page
// (view.OrderRead.LineRows, TrackingRows); one order alone reads it as ent's
// entities (view.OrderWith). Every order of a page, in a list and in an
// NDJSON export, must be the document GET /v1/orders/{id} returns: lines in
// id order, at most the 3 newest tracking entries (ties in time by id),
// entries with and without a hub, an order without lines or entries, at
// page sizes that cut the list anywhere.
func TestOrderPageMatchesOrders(t *testing.T) {
	srv := apptest.New(t)
	do := func(method, path string, body map[string]any, want int) []byte {
		t.Helper()
		resp := srv.Do(t, method, srv.URL+path, body, nil)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
		}
		return resp.Body
	}
	id := func(body []byte) string {
		var v struct{ ID string }
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		return v.ID
	}
	for _, h := range []string{"AMS1", "RTM1"} {
		do("POST", "/v1/hubs", map[string]any{"code": h, "name": h, "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	}
	for i := range 4 {
		sku := fmt.Sprintf("P-%d", i)
		do("POST", "/v1/parts", map[string]any{"sku": sku, "part_name": "Part " + sku}, http.StatusCreated)
	}
	var orders []string
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		var lines []any
		for j := range (i * 3) % 5 { // 0, 3, 1, 4, 2 lines
			lines = append(lines, map[string]any{"sku": fmt.Sprintf("P-%d", j), "quantity": 1 + i + j})
		}
		o := id(do("POST", "/v1/orders", map[string]any{"hub": "AMS1", "lines": lines}, http.StatusCreated))
		orders = append(orders, o)
		for k := range (i * 2) % 6 { // 0, 2, 4, 0, 2 entries; two at one time
			e := map[string]any{"order_id": o, "tracking_number": fmt.Sprintf("TN%d", k), "carrier": "DHL",
				"status": "in_transit", "location": "Loc", "description": fmt.Sprintf("entry %d", k),
				"occurred_at": at.Add(time.Duration(k/2) * time.Hour).Format(time.RFC3339)}
			if k%2 == 0 {
				e["hub"] = []string{"AMS1", "RTM1"}[k%4/2]
			}
			do("POST", "/v1/tracking-entries", e, http.StatusCreated)
		}
	}
	alone := map[string]string{}
	for _, o := range orders {
		alone[o] = compactJSON(t, do("GET", "/v1/orders/"+o, nil, http.StatusOK))
	}
	var seen map[string]string // the orders not met yet
	check := func(where string, raw json.RawMessage) {
		t.Helper()
		o := id(raw)
		if got := compactJSON(t, raw); got != alone[o] {
			t.Errorf("%s: order %s\n%s\nGET /v1/orders/{id} gives\n%s", where, o, got, alone[o])
		}
		delete(seen, o)
	}
	for _, limit := range []int{1, 2, 5, 10} {
		seen = maps.Clone(alone)
		path := fmt.Sprintf("/v1/orders?limit=%d", limit)
		for path != "" {
			var page struct {
				Data       []json.RawMessage
				HasMore    bool   `json:"has_more"`
				NextCursor string `json:"next_cursor"`
			}
			if err := json.Unmarshal(do("GET", path, nil, http.StatusOK), &page); err != nil {
				t.Fatal(err)
			}
			for _, raw := range page.Data {
				check(path, raw)
			}
			path = ""
			if page.HasMore {
				path = fmt.Sprintf("/v1/orders?limit=%d&cursor=%s", limit, page.NextCursor)
			}
		}
		if len(seen) != 0 {
			t.Errorf("limit %d: orders not listed: %v", limit, slices.Collect(maps.Keys(seen)))
		}
	}
	// An export renders batch after batch into the same pooled memory:
	// in one batch, and two orders at a time.
	for _, batch := range []int{0, 2} {
		if batch > 0 {
			defer rest.SetExportBatch(batch)()
		}
		seen = maps.Clone(alone)
		for line := range strings.SplitSeq(strings.TrimSpace(string(do("GET", "/v1/orders?format=ndjson", nil, http.StatusOK))), "\n") {
			check(fmt.Sprintf("ndjson, batches of %d", batch), json.RawMessage(line))
		}
		if len(seen) != 0 {
			t.Errorf("ndjson, batches of %d: orders not exported: %v", batch, slices.Collect(maps.Keys(seen)))
		}
	}

	// Pages written at the same time each keep their own memory until
	// written (a page given back early would be written over by another).
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 60 {
				// Each order in turn first on a page (numbers ascending or
				// descending), so that a page written over by another
				// differs from it.
				limit, sort := []int{1, 2, 5, 10}[(g+i)%4], []string{"number", "-number"}[(g/2+i)%2]
				req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/orders?limit=%d&sort=%s", srv.URL, limit, sort), nil)
				req.Header = apptest.Bearer(srv.Keys[environment.Production])
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				var page struct{ Data []json.RawMessage }
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil || len(page.Data) != min(limit, len(alone)) {
					errs <- fmt.Sprintf("limit %d: %d orders, %v", limit, len(page.Data), err)
					return
				}
				for _, raw := range page.Data {
					var b bytes.Buffer
					_ = json.Compact(&b, raw)
					var v struct{ ID string }
					_ = json.Unmarshal(raw, &v)
					if b.String() != alone[v.ID] {
						errs <- fmt.Sprintf("limit %d, concurrently: order %s\n%s\nalone\n%s", limit, v.ID, b.String(), alone[v.ID])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// compactJSON is raw with its insignificant space removed.
func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
