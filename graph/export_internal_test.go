package graph

import (
	"sync/atomic"
	"testing"
)

// SlowGrace is slowGrace, for the subscription tests.
const SlowGrace = slowGrace

// ProbeResponseSlabs has the transport overwrite each response slab it
// takes back once the response is written, and count the slabs it lends,
// until the test ends: a response read from its slab after the slab's
// release is garbled.
func ProbeResponseSlabs(t testing.TB) (lent *atomic.Int64) {
	p := new(responseProbe)
	if !responseProbes.CompareAndSwap(nil, p) {
		t.Fatal("ProbeResponseSlabs: another test probes them")
	}
	t.Cleanup(func() { responseProbes.Store(nil) })
	return &p.lent
}
