package service

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"logistics/internal/view"

	"logistics/internal/decimal"
)

// TestAsMapMembers holds asMap's splitter to encoding/json: every object's
// members are the texts json.Unmarshal finds, for values with nested
// objects, arrays, and strings holding quotes, braces, commas and escapes.
func TestAsMapMembers(t *testing.T) {
	type line struct {
		ID  string          `json:"id"`
		Qty decimal.Decimal `json:"quantity"`
	}
	type rep struct {
		ID       string            `json:"id"`
		Note     string            `json:"note"`
		Lines    []line            `json:"lines"`
		Ship     map[string]string `json:"ship_to"`
		Due      *time.Time        `json:"due_at"`
		Empty    []int             `json:"empty"`
		Nested   map[string]any    `json:"nested"`
		Flag     bool              `json:"flag"`
		Revision int               `json:"revision"`
	}
	due := time.Date(2026, 11, 23, 10, 0, 0, 123000, time.UTC)
	values := []any{
		rep{
			ID: "ord_1", Note: `a "quoted", {braced} [note] \ with, commas} and ]`,
			Lines: []line{{ID: "oln_1", Qty: decimal.FromInt(3)}, {ID: "oln_\"2", Qty: decimal.FromInt(1)}},
			Ship:  map[string]string{"city": "Zürich \u2028", "line1": "}"},
			Due:   &due, Nested: map[string]any{"a": []any{map[string]any{"b": "}]"}}, "c": nil},
			Flag: true, Revision: 7,
		},
		rep{},
		map[string]any{},
		map[string]any{"only": 1},
	}
	for i, v := range values {
		m, err := asMap(v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		b, _ := json.Marshal(v)
		if _, ok := members(b); !ok {
			t.Errorf("value %d: members declined %s (asMap fell back to encoding/json)", i, b)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if len(m) != len(want) {
			t.Fatalf("value %d: %d members, encoding/json finds %d", i, len(m), len(want))
		}
		for k, w := range want {
			got, ok := m[k].(view.JSONText)
			if !ok || string(got) != string(w) {
				t.Errorf("value %d, member %q: %s, want %s", i, k, m[k], w)
			}
		}
		// The members written out again are the object (keys sorted, as
		// encoding/json writes a map, which the event's data always was).
		again, _ := json.Marshal(m)
		var x, y any
		_ = json.Unmarshal(again, &x)
		_ = json.Unmarshal(b, &y)
		if !reflect.DeepEqual(x, y) {
			t.Errorf("value %d: written again %s, want %s", i, again, b)
		}
	}
	// A key with an escape, or anything that is not an object as
	// encoding/json writes it, is left to encoding/json.
	for _, b := range []string{`{"a\"b":1}`, `[1]`, `{"a":1`, `{"a" :1}`, `{"a":1}x`, ``, `{"a":}`, `{"a":,"b":1}`} {
		if _, ok := members([]byte(b)); ok {
			t.Errorf("members(%s) split it; it should decline", b)
		}
	}
	if m, err := asMap(map[string]int{"a\"b": 1}); err != nil || string(m["a\"b"].(view.JSONText)) != "1" {
		t.Errorf("escaped key: %v %v", m, err)
	}
	// previous_attributes: equal texts are unchanged fields.
	before, _ := asMap(values[0])
	r := values[0].(rep)
	r.Lines = append([]line(nil), r.Lines...)
	r.Lines[0].Qty = decimal.FromInt(4)
	r.Revision = 8
	after, _ := asMap(r)
	prev := changed(before, after)
	if len(prev) != 2 || prev["lines"] == nil || string(prev["revision"].(view.JSONText)) != "7" {
		t.Errorf("changed: %v, want lines and revision 7", prev)
	}
	if q, ok := decimalField(map[string]any{"quantity": view.JSONText("2.5")}, "quantity"); !ok || q.String() != "2.5" {
		t.Errorf("decimalField: %v %v", q, ok)
	}
}
