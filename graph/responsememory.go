package graph

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"

	"logistics/graph/generated"
)

// A query's response is written by gqlgen's executor into a bytes.Buffer of
// its own, and the response's data is that buffer's bytes: for a page the
// fast path served, one fresh allocation of the whole document per request
// (56 KB on W3, a large object, so zeroed and taken under the heap's lock).
// Our transport writes those bytes and nothing keeps them after (an
// io.Writer may not retain what it is given), so the transport lends the
// executor a slab that earlier responses used (responseMemory) and takes it
// back once the response is written. The executor's buffer is handed the
// slab when the fast path's first root field is written into it
// (fastField.MarshalGQL): with what the executor wrote before (`{"orders":`),
// and room for the field and the rest of the document. What the executor
// writes past that room makes its buffer grow into fresh memory, as before;
// the slab is then no longer the response's, and goes back all the same.
// Other transports (WebSocket, SSE) lend nothing: their executor's buffer
// stays its own.

// responseSlack is the room left after a root field for what the executor
// writes after it: the closing brace, and another root field's name.
const responseSlack = 256

// maxResponseSlab is the largest slab kept for the next response; larger
// ones go to the collector (a response can be megabytes).
const maxResponseSlab = 1 << 20

var responseSlabs sync.Pool // *[]byte

// responseMemory is one request's loan: at most one slab, lent to the
// executor's buffer by the first fast-path root field written into it.
type responseMemory struct{ lent *[]byte }

type responseMemoryKey struct{}

// withResponseMemory returns ctx in which the fast path's root fields may
// lend the executor a slab, and the memory to release once the response is
// written.
func withResponseMemory(ctx context.Context) (context.Context, *responseMemory) {
	m := new(responseMemory)
	return context.WithValue(ctx, responseMemoryKey{}, m), m
}

// lend returns an empty slab of at least n bytes, nil when m lent one
// already (or m is nil: the transport lends nothing).
func (m *responseMemory) lend(n int) []byte {
	if m == nil || m.lent != nil {
		return nil
	}
	p, _ := responseSlabs.Get().(*[]byte)
	if p == nil || cap(*p) < n {
		s := make([]byte, 0, n)
		p = &s
	}
	m.lent = p
	if probe := responseProbes.Load(); probe != nil {
		probe.lent.Add(1)
	}
	return (*p)[:0]
}

// release takes the slab back; the response written from it is no longer
// read.
func (m *responseMemory) release() {
	if m == nil || m.lent == nil {
		return
	}
	p := m.lent
	m.lent = nil
	if cap(*p) > maxResponseSlab {
		return
	}
	if responseProbes.Load() != nil {
		b := (*p)[:cap(*p)]
		for i := range b {
			b[i] = 'X'
		}
	}
	*p = (*p)[:0]
	responseSlabs.Put(p)
}

// responseProbes, set by tests only, has lend count the slabs lent and
// release overwrite each slab it takes back, so that a response read after
// its release shows it.
var responseProbes atomic.Pointer[responseProbe]

type responseProbe struct{ lent atomic.Int64 }

// fastField is a root field the fast path served, as the executor writes
// it: into the request's lent slab when it is the first.
type fastField struct {
	json *generated.FastJSON
	mem  *responseMemory
}

func (f fastField) MarshalGQL(w io.Writer) {
	if b, ok := w.(*bytes.Buffer); ok {
		if s := f.mem.lend(b.Len() + f.json.Len() + responseSlack); s != nil {
			*b = *bytes.NewBuffer(append(s, b.Bytes()...))
		}
	}
	f.json.MarshalGQL(w)
}

// responseMemoryOf returns the memory the transport put in ctx, nil when none.
func responseMemoryOf(ctx context.Context) *responseMemory {
	m, _ := ctx.Value(responseMemoryKey{}).(*responseMemory)
	return m
}
