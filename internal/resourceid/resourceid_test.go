package resourceid

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestNewAndParse(t *testing.T) {
	id := New(Hub)
	if !strings.HasPrefix(string(id), "hub_") || len(id) != 4+26 {
		t.Fatalf("New(hub) = %q", id)
	}
	if _, err := Parse(string(id), Hub); err != nil {
		t.Fatalf("Parse(%q): %v", id, err)
	}
	if _, err := Parse(string(id), Item); err == nil {
		t.Fatalf("a hub id parsed as an item id")
	}
	for _, bad := range []string{"", "hub", "hub_", "hub_xyz", "_01JD3K0000000000000000000", "hub_01JD3K00000000000000000000000"} {
		if _, err := Parse(bad, Hub); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestNewConcurrentUnique(t *testing.T) {
	var mu sync.Mutex
	seen := map[ID]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				id := New(Order)
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate id %s", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestUnmarshalGQL(t *testing.T) {
	var id ID
	if err := id.UnmarshalGQL(ID("hub_x")); err != nil || id != "hub_x" {
		t.Fatalf("UnmarshalGQL(ID) = %q, %v", id, err)
	}
	if err := id.UnmarshalGQL(12); err == nil {
		t.Fatal("UnmarshalGQL(12) accepted")
	}
}

// TestMarshalGQL: an ordinary id is written as is between quotes; anything
// that needs escaping goes through strconv.Quote, so the output is always
// the JSON string strconv.Quote would make.
func TestMarshalGQL(t *testing.T) {
	for _, id := range []ID{New(Item), "prt_01ABC", "", `a"b`, `a\b`, "tab\there", "é", "\x7f", "\x00"} {
		var b strings.Builder
		id.MarshalGQL(&b)
		if want := strconv.Quote(string(id)); b.String() != want {
			t.Errorf("MarshalGQL(%q) = %s, want %s", id, b.String(), want)
		}
	}
}

// TestNewIncreases: ids made one after the other in one process increase
// strictly, also within a millisecond (thousands are made in one here).
func TestNewIncreases(t *testing.T) {
	prev := New(Order)
	for range 20000 {
		id := New(Order)
		if id <= prev {
			t.Fatalf("%s after %s", id, prev)
		}
		prev = id
	}
}
