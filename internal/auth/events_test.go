package auth

import (
	"context"
	"slices"
	"testing"

	"logistics/ent"
	"logistics/internal/eventlog"
)

// TestEventTypeScopes: every type of the catalog takes its read scope from
// the policy table (none falls back to every read scope); families take
// their types'; "*", no type and unknown nouns need every read scope.
func TestEventTypeScopes(t *testing.T) {
	for _, c := range eventlog.Catalog {
		got := EventTypeScopes(c.Name)
		if len(got) == 0 || slices.Equal(got, ReadScopes()) {
			t.Errorf("%s: %v (the policy table names no resource for it)", c.Name, got)
		}
	}
	for typ, want := range map[string][]string{
		"hub.created": {"hubs:read"}, "items.imported": {"items:read"}, "order_line.deleted": {"orders:read"},
		"order.*": {"orders:read"}, "tracking_entry.created": {"tracking:read"}, "workflow.created": {"workflows:read"},
		"webhook_endpoint.disabled": {"webhooks:read"}, "webhook_endpoint.*": {"webhooks:read"}, "webhook.test": {"webhooks:read"},
		"demo_data.loaded": {"hubs:read", "parts:read", "items:read", "orders:read"},
		"*":                ReadScopes(), "": ReadScopes(), "invoice.paid": ReadScopes(), "orders.created": ReadScopes(),
	} {
		if got := EventTypeScopes(typ); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", typ, got, want)
		}
	}
}

// TestVisibleEvents: a principal sees the nouns of its read scopes (a write
// scope implies its read), all of them with every read scope, none without
// any scope; a filter is narrowed to them, and one asking for a type by name
// that the principal may not read is refused naming the scope.
func TestVisibleEvents(t *testing.T) {
	for _, c := range []struct {
		scopes []string
		nouns  []string
		all    bool
	}{
		{nil, nil, false},
		{[]string{"hubs:write"}, []string{"hub"}, false},
		{[]string{"orders:read", "webhooks:write"}, []string{"order", "order_line", "webhook", "webhook_endpoint"}, false},
		{[]string{"hubs:read", "parts:read", "items:read", "orders:read"}, []string{"demo_data", "hub", "item", "items", "order", "order_line", "part", "sandbox"}, false},
		{ReadScopes(), nil, true},
	} {
		nouns, all := VisibleEvents(&Principal{Scopes: c.scopes})
		if !slices.Equal(nouns, c.nouns) || all != c.all {
			t.Errorf("%v: %v %v, want %v %v", c.scopes, nouns, all, c.nouns, c.all)
		}
	}
	none := NewContext(context.Background(), &Principal{Kind: KindToken})
	w, err := ScopeEventWhere(none, nil)
	if err != nil || w == nil || w.ID == nil || *w.ID != "" {
		t.Errorf("no scope: %+v %v, want a filter that selects nothing", w, err)
	}
	hubs := NewContext(context.Background(), &Principal{Kind: KindToken, Scopes: []string{"hubs:read"}})
	typ := "order.created"
	for _, where := range []*ent.EventWhereInput{
		{Type: &typ}, {TypeIn: []string{"hub.created", typ}}, {And: []*ent.EventWhereInput{{TypeIn: []string{typ}}}},
	} {
		if _, err := ScopeEventWhere(hubs, where); err == nil {
			t.Errorf("%+v: no error", where)
		}
	}
	prefix := "order."
	w, err = ScopeEventWhere(hubs, &ent.EventWhereInput{TypeHasPrefix: &prefix})
	if err != nil || len(w.And) != 2 || len(w.And[1].Or) != 1 || *w.And[1].Or[0].TypeHasPrefix != "hub." {
		t.Errorf("narrowed: %+v %v", w, err)
	}
	if _, err := ScopeEventWhere(context.Background(), nil); err == nil {
		t.Error("no principal: no error")
	}
}
