package view

import (
	"fmt"
	"testing"

	"logistics/internal/resourceid"
)

// TestPageHubsShareDistinctHubs: rows of one hub get one ent.Hub, each with
// its own id and code; past the first 16 distinct hubs rows get their own,
// still right.
func TestPageHubsShareDistinctHubs(t *testing.T) {
	var p pageHubs
	id := func(i int) resourceid.ID { return resourceid.ID(fmt.Sprintf("hub_%02d", i)) }
	first := p.get(id(0), "H00")
	if again := p.get(id(0), "H00"); again != first {
		t.Fatal("a second row of one hub got another ent.Hub")
	}
	for i := 1; i < 20; i++ {
		h := p.get(id(i), fmt.Sprintf("H%02d", i))
		if h.ID != id(i) || h.Code != fmt.Sprintf("H%02d", i) || h == first {
			t.Fatalf("hub %d: %+v", i, h)
		}
		if i < 16 && p.get(id(i), "") != h {
			t.Fatalf("hub %d (one of the first 16) not shared", i)
		}
	}
	if late := p.get(id(19), "H19"); late.ID != id(19) || late.Code != "H19" {
		t.Fatalf("a hub past the first 16: %+v", late)
	}
}
