package gqlcodegen

import (
	"testing"

	"entgo.io/ent/entc/gen"
)

func TestWhereText(t *testing.T) {
	d := &typeDoc{
		t: &gen.Type{Name: "Workflow"},
		fields: map[string]*fieldDoc{
			"builtIn": {name: "builtIn", comment: "True for the built-in fulfilment workflow."},
			"key":     {name: "key", comment: "The workflow's key."},
		},
		edges: map[string]*edgeDoc{
			"orders": {name: "orders", target: "Order"},
			"hub":    {name: "hub", target: "Hub", unique: true},
		},
	}
	for name, want := range map[string]string{
		"builtIn":           "builtIn equals the value. True for the built-in fulfilment workflow.",
		"builtInNEQ":        "builtIn differs from the value.",
		"keyIn":             "key is one of the values (at most 100).",
		"keyNotIn":          "key is none of the values (at most 100).",
		"keyGTE":            "key is greater than or equal to the value.",
		"keyGT":             "key is greater than the value.",
		"keyContainsFold":   "key contains the value, ignoring case (ASCII letters only on SQLite).",
		"keyContains":       "key contains the value (case-sensitive).",
		"keyIsNil":          "true: key is not set (null).",
		"hasOrders":         "true: the Workflow has at least one of its orders; false: it has none.",
		"hasHub":            "true: the Workflow has a hub; false: it has none.",
		"hasHubWith":        "Its hub matches every filter in the list (HubWhereInput; several entries are ANDed, use or: inside one for alternatives). Needs read scope on Hub.",
		"not":               "Matches the Workflow objects that this filter does not match.",
		"unknownPredicate":  "",
		"keyUnknownPostfix": "",
	} {
		if got := d.whereText(name); got != want {
			t.Errorf("whereText(%q) = %q, want %q", name, got, want)
		}
	}
}
