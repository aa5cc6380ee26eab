package view

import (
	"reflect"
	"testing"

	"logistics/ent"
)

// TestLineMemoryLendsAndTakesBack: a LineMemory lends distinct zeroed
// entities, each line beside its part, across chunks; reset zeroes every
// one it lent, keeps keptLineChunks chunks (the rest left to the
// collector) and lends the same memory again from the start. A nil one lends
// fresh entities.
func TestLineMemoryLendsAndTakesBack(t *testing.T) {
	var none *LineMemory
	if l1, p1 := none.next(); l1 == nil || p1 == nil {
		t.Fatal("a nil LineMemory lent nothing")
	} else if l2, _ := none.next(); l1 == l2 {
		t.Fatal("a nil LineMemory lent the same line twice")
	}
	none.Release() // a no-op

	m := new(LineMemory)
	const n = lineChunk*(keptLineChunks+2) + 5
	seen := map[*ent.OrderLine]bool{}
	var first *ent.OrderLine
	var lent []*ent.OrderLine
	for i := range n {
		ln, pt := m.next()
		if seen[ln] || !reflect.DeepEqual(*ln, ent.OrderLine{}) || pt.Sku != "" {
			t.Fatalf("slot %d: lent twice or not zero", i)
		}
		seen[ln] = true
		if i == 0 {
			first = ln
		}
		ln.ID, ln.Quantity, pt.Sku = "orl_x", 3, "SKU"
		ln.Edges.Part = pt
		lent = append(lent, ln)
	}
	if len(m.chunks) != keptLineChunks+3 {
		t.Fatalf("%d chunks for %d lines", len(m.chunks), n)
	}
	m.reset()
	for i, ln := range lent {
		if !reflect.DeepEqual(*ln, ent.OrderLine{}) {
			t.Fatalf("line %d not zeroed by reset: %+v", i, ln)
		}
	}
	if m.n != 0 || len(m.chunks) != keptLineChunks {
		t.Fatalf("after reset: %d lent, %d chunks", m.n, len(m.chunks))
	}
	for _, c := range m.chunks[keptLineChunks:cap(m.chunks)] {
		if c != nil {
			t.Fatal("a dropped chunk is still referenced")
		}
	}
	if ln, pt := m.next(); ln != first || pt.Sku != "" {
		t.Fatal("reset did not lend the same memory again from the start")
	}
}
