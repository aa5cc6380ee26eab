package webhooks

import "testing"

func TestWants(t *testing.T) {
	for _, c := range []struct {
		filter []string
		typ    string
		want   bool
	}{
		{nil, "order.created", true},
		{[]string{"*"}, "hub.updated", true},
		{[]string{"order.created"}, "order.created", true},
		{[]string{"order.created"}, "order.transitioned", false},
		{[]string{"order.*"}, "order.transitioned", true},
		{[]string{"order.*"}, "order_line.created", false},
		{[]string{"order.*"}, "order", false},
		{[]string{"hub.created", "item.*"}, "item.updated", true},
		{[]string{"hub.created", "item.*"}, "part.created", false},
	} {
		if got := wants(c.filter, c.typ); got != c.want {
			t.Errorf("wants(%q, %q) = %v", c.filter, c.typ, got)
		}
	}
}
