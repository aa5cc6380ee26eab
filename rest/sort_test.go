package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/internal/filter"
)

// listEndpoint is one filtered list of the API with its filter table.
type listEndpoint struct {
	path  string // may hold {name} placeholders of the fixture
	table *filter.Table
}

var listEndpoints = []listEndpoint{
	{"/v1/hubs", filter.HubTable},
	{"/v1/parts", filter.PartTable},
	{"/v1/items", filter.ItemTable},
	{"/v1/orders", filter.OrderTable},
	{"/v1/orders/{shipped}/lines", filter.OrderLineTable},
	{"/v1/tracking-entries", filter.TrackingEntryTable},
	{"/v1/workflows", filter.WorkflowTable},
	{"/v1/orders/{shipped}/events", filter.OrderEventTable},
	{"/v1/events", filter.EventTable},
}

// withMoreRows adds what the fixture lacks for every list to hold rows that
// differ in every sortable field: a workflow in two versions, an order
// ({shipped}) with two lines taken through its workflow to shipped, and one
// ({allocated}) that holds a reservation.
func withMoreRows(t *testing.T, f *fixture) {
	t.Helper()
	for range 2 {
		f.post(t, "/v1/workflows", map[string]any{
			"key": "express", "name": "Express", "states": []string{"new", "gone"}, "initial_state": "new",
			"transitions": []map[string]any{{"name": "ship", "from": []string{"new"}, "to": "gone", "effect": "ship"}},
		})
	}
	for name, o := range map[string]struct {
		lines       []map[string]any
		transitions []string
	}{
		"shipped":   {[]map[string]any{{"sku": "BOLT-M8", "quantity": 2}, {"sku": "BOLT-M8", "quantity": 1}}, []string{"submit", "allocate", "start_picking", "ship"}},
		"allocated": {[]map[string]any{{"sku": "BOLT-M8", "quantity": 5}, {"sku": "BOLT-M8", "quantity": 4}}, []string{"submit", "allocate"}},
	} {
		id := f.post(t, "/v1/orders", map[string]any{"hub": "AMS1", "lines": o.lines})["id"].(string)
		f.ids[name] = id
		for _, tr := range o.transitions {
			body := map[string]any{"transition": tr}
			if tr == "ship" {
				body["tracking_number"], body["carrier"] = "TN9", "DHL"
			}
			resp := f.s.Do(t, "POST", f.s.URL+"/v1/orders/"+id+"/transitions", body, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s: %d %s", name, tr, resp.StatusCode, resp.Body)
			}
		}
	}
}

// jsonPath is where a filter field's value sits in the representation.
func jsonPath(table *filter.Table, field string) string {
	if table == filter.HubTable && (field == "city" || field == "country") {
		return "address." + field
	}
	return field
}

// lookup reads a dotted path of a decoded JSON object.
func lookup(obj map[string]any, path string) any {
	var v any = obj
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// compareJSON orders two decoded JSON values of one field: numbers as
// numbers, times as times, other strings as bytes.
func compareJSON(a, b any) int {
	switch x := a.(type) {
	case json.Number:
		fa, _ := x.Float64()
		fb, _ := b.(json.Number).Float64()
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	case string:
		y := b.(string)
		ta, erra := time.Parse(time.RFC3339Nano, x)
		tb, errb := time.Parse(time.RFC3339Nano, y)
		if erra == nil && errb == nil {
			return ta.Compare(tb)
		}
		return strings.Compare(x, y)
	}
	return 0
}

// TestEverySortableFieldSorts sorts every list by each of its sortable
// fields, both ways, and checks the order of the values returned: the sort
// keys of the filter tables are ent order fields (rest.orderBy relies on
// it).
func TestEverySortableFieldSorts(t *testing.T) {
	f := newFixture(t)
	withMoreRows(t, f)
	// Values seen per resource and field, over both orders' lines.
	distinct := map[string]map[string]bool{}
	endpoints := append(listEndpoints, listEndpoint{"/v1/orders/{allocated}/lines", filter.OrderLineTable})
	for _, ep := range endpoints {
		for _, field := range ep.table.SortFields() {
			name := ep.table.Resource + "/" + field
			if distinct[name] == nil {
				distinct[name] = map[string]bool{}
			}
			t.Run(name, func(t *testing.T) {
				for _, desc := range []bool{false, true} {
					sort := field
					if desc {
						sort = "-" + field
					}
					resp := f.s.Do(t, "GET", f.s.URL+f.expand(ep.path)+"?limit=500&sort="+sort, nil, nil)
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("sort=%s: %d %s", sort, resp.StatusCode, resp.Body)
					}
					var page struct{ Data []map[string]any }
					dec := json.NewDecoder(strings.NewReader(string(resp.Body)))
					dec.UseNumber()
					if err := dec.Decode(&page); err != nil {
						t.Fatal(err)
					}
					for i, row := range page.Data {
						v := lookup(row, jsonPath(ep.table, field))
						distinct[name][string(mustJSON(t, v))] = true
						if i == 0 {
							continue
						}
						prev := lookup(page.Data[i-1], jsonPath(ep.table, field))
						if v == nil || prev == nil { // a nullable field: the nulls last, both ways
							if prev == nil && v != nil {
								t.Fatalf("sort=%s: row %d (%v) after a null", sort, i, v)
							}
							continue
						}
						c := compareJSON(prev, v)
						if (!desc && c > 0) || (desc && c < 0) {
							t.Fatalf("sort=%s: row %d (%v) out of order", sort, i, v)
						}
					}
				}
			})
		}
	}
	for name, values := range distinct {
		if len(values) == 1 && values["null"] {
			continue // not in the representation (events' updated_at): sorted by the database alone
		}
		if len(values) < 2 {
			t.Errorf("%s: %d distinct values: the test proves nothing", name, len(values))
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
