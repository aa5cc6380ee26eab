package eventlog

import (
	"bytes"
	"encoding/json"
	"testing"

	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// TestMarshalDataAsEncodingJSON: an event's data is written byte for byte
// as json.Marshal wrote it (readers decode it either way, but stored texts
// stay comparable across versions): keys in order, view.JSONText members as
// they are (encoding/json's own output, as view writes it), raw members
// compacted and HTML-escaped, other values and odd keys by encoding/json,
// invalid raw text refused.
func TestMarshalDataAsEncodingJSON(t *testing.T) {
	for name, data := range map[string]map[string]any{
		"empty":  {},
		"object": {"object": map[string]any{"id": json.RawMessage(`"trk_1"`), "n": json.RawMessage(`1.50`), "hub": json.RawMessage(`null`), "lines": json.RawMessage(`[{"a":1},{"b":[true,false]}]`)}},
		"order":  {"object": map[string]any{"b": json.RawMessage(`2`), "a": json.RawMessage(`1`), "B": json.RawMessage(`3`), "_": json.RawMessage(`4`), "a_b": json.RawMessage(`5`), "ab": json.RawMessage(`6`)}},
		"spaces": {"object": map[string]any{"x": json.RawMessage(" { \"a\" : [ 1 , 2 ] ,\n\t\"b\":\"c d\" } ")}},
		"html":   {"object": map[string]any{"name": json.RawMessage(`"<b>Tom & Jerry</b>\u2028"`), "<k>": json.RawMessage(`"&"`)}, "raw": json.RawMessage("\"\u2029 <\"")},
		"keys":   {"object": map[string]any{"é": json.RawMessage(`1`), "a\"b": json.RawMessage(`2`), "tab\t": json.RawMessage(`3`), "back\\": json.RawMessage(`4`)}},
		"values": {"object": map[string]any{"deleted": true, "id": resourceid.ID("hub_x"), "n": 3, "f": 1.5, "s": "<x>", "nil": nil, "nilmap": map[string]any(nil), "nilraw": json.RawMessage(nil), "list": []any{1, "a", map[string]any{"z": 1, "y": json.RawMessage(`2`)}}}},
		"text":   {"object": map[string]any{"id": view.JSONText(`"trk_1"`), "name": view.JSONText(`"\u003cb\u003e"`), "lines": view.JSONText(`[{"a":1.50,"b":null}]`), "nil": view.JSONText(nil)}, "previous_attributes": map[string]any{"revision": view.JSONText(`7`)}},
		"all":    {"object": map[string]any{"revision": json.RawMessage(`3`)}, "previous_attributes": map[string]any{"revision": int64(2), "status": json.RawMessage(`"open"`)}, "cause": map[string]any{"order_id": resourceid.ID("ord_1"), "effect": "allocate"}},
	} {
		want, werr := json.Marshal(data)
		got, gerr := marshalData(data)
		if werr != nil || gerr != nil {
			t.Errorf("%s: errors %v and %v", name, werr, gerr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	bad := map[string]any{"object": map[string]any{"x": json.RawMessage(`{"a":`)}}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("encoding/json took invalid raw text")
	}
	if b, err := marshalData(bad); err == nil {
		t.Errorf("invalid raw text written: %s", b)
	}
}
