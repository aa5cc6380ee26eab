package filter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"logistics/internal/apperr"
)

func TestParseEventFilters(t *testing.T) {
	set, err := ParseEventFilters(EventFilters{
		"order":          json.RawMessage(`{"hasHubWith": [{"code": "AMS1"}], "priority": "urgent", "customerRef": null}`),
		"item":           json.RawMessage(`{"quantityGTE": "2.5", "statusIn": "available"}`),
		"tracking_entry": json.RawMessage(`{}`),
	}, "filters")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Keys(), ","); got != "item,order" {
		t.Errorf("keys = %s, want item,order (the empty filter dropped)", got)
	}
	// Stored as the where input marshals: GraphQL's names, values coerced
	// (a single value to a list of one, a decimal string to a number).
	if got := string(set.Stored()["item"]); got != `{"quantityGTE":2.5,"statusIn":["available"]}` {
		t.Errorf("stored item filter = %s", got)
	}
	if set.For("Order") == nil || set.For("Hub") != nil || set.For("Order").Empty() {
		t.Errorf("For: order %v, hub %v", set.For("Order"), set.For("Hub"))
	}
	if set.Where("order") == nil {
		t.Error("no where input for the scope rule")
	}
}

func TestParseEventFiltersErrors(t *testing.T) {
	for _, tc := range []struct{ in, field string }{
		{`{"shipment": {}}`, "filters.shipment"},
		{`{"order": []}`, "filters.order"},
		{`{"order": {"Priority": "low"}}`, "filters.order.Priority"},
		{`{"order": {"priority": 3}}`, "filters.order.priority"},
		{`{"order": {"priorityIn": ["low", "soon"]}}`, "filters.order.priorityIn"},
		{`{"order": {"and": [{"not": {"hasLinesWith": [{"quantityGT": "x"}]}}]}}`, "filters.order.and[0].not.hasLinesWith[0].quantityGT"},
		{`{"order": {"number": "a\u0000b"}}`, "filters.order.number"},
		{`{"hub": {"active": "yes"}}`, "filters.hub.active"},
		{`{"workflow": {"version": 1.5}}`, "filters.workflow.version"},
	} {
		var f EventFilters
		if err := json.Unmarshal([]byte(tc.in), &f); err != nil {
			t.Fatal(err)
		}
		_, err := ParseEventFilters(f, "filters")
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Kind != apperr.KindValidation || len(ae.Fields) != 1 || ae.Fields[0].Field != tc.field {
			t.Errorf("%s: %v, want a 422 naming %s", tc.in, err, tc.field)
		}
	}
}

// FuzzParseEventFilters: no input panics, and whatever is accepted stores
// a filter that parses again to the same.
func FuzzParseEventFilters(f *testing.F) {
	for _, s := range []string{`{"status": "open"}`, `{"or": [{"hasHubWith": [{"code": "A"}]}]}`, `{"not": {"not": {}}}`, `[]`, `"x"`, `{"quantityGTE": 1e400}`} {
		f.Add("order", s)
		f.Add("item", s)
	}
	f.Fuzz(func(t *testing.T, key, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		set, err := ParseEventFilters(EventFilters{key: json.RawMessage(raw)}, "filters")
		if err != nil {
			return
		}
		again, err := ParseEventFilters(set.Stored(), "filters")
		if err != nil {
			t.Fatalf("stored %v does not parse again: %v", set.Stored(), err)
		}
		for k, v := range set.Stored() {
			if string(again.Stored()[k]) != string(v) {
				t.Fatalf("stored %s, then %s", v, again.Stored()[k])
			}
		}
	})
}
