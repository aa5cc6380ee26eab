package rest_test

import (
	"fmt"
	"maps"
	"net/http"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
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
