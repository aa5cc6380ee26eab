package view

import (
	"sync"

	"logistics/ent"
)

// GraphQL's pages of orders need their lines as ent entities (the
// generated resolvers and the fast path read ent.OrderLine and ent.Part),
// which PageWith made fresh for every page: an ent.OrderLine and an
// ent.Part per line, 520 bytes that hold pointers, 107 KB on W3. Fresh
// memory that holds pointers is what the service's last-level cache misses
// come from (zeroed on allocation, then marked by the collector). A LineMemory (OrderRead.LineMemory) lends
// the entities from memory earlier pages used, and takes all of them back at
// once in Release: for a caller that is done with every entity read into it,
// as GraphQL's fast path is once it has written a root field's JSON.

// A LineMemory lends PageWith the entities of the lines and parts it reads;
// nil makes fresh ones. Not safe for concurrent use.
type LineMemory struct {
	chunks [][]linePart
	n      int // slots lent since the last Release
}

// linePart is a line and its part, lent together.
type linePart struct {
	line ent.OrderLine
	part ent.Part
}

const (
	lineChunk = 64 // slots per allocation: 33 KB
	// keptLineChunks bound what a LineMemory keeps between pages (512
	// lines, 266 KB); a larger page's extra chunks go to the collector.
	keptLineChunks = 8
)

var lineMemories = sync.Pool{New: func() any { return new(LineMemory) }}

// NewLineMemory returns a LineMemory, from the pool when there is one.
func NewLineMemory() *LineMemory { return lineMemories.Get().(*LineMemory) }

// next lends the zeroed entities of one line and its part.
func (m *LineMemory) next() (*ent.OrderLine, *ent.Part) {
	if m == nil {
		return new(ent.OrderLine), new(ent.Part)
	}
	c, i := m.n/lineChunk, m.n%lineChunk
	if c == len(m.chunks) {
		m.chunks = append(m.chunks, make([]linePart, lineChunk))
	}
	m.n++
	lp := &m.chunks[c][i]
	return &lp.line, &lp.part
}

// Release takes back every entity m lent: they are zeroed and lent again to
// later pages, so neither they nor the orders whose edges hold them may be
// used after. m goes back to the pool.
func (m *LineMemory) Release() {
	if m == nil {
		return
	}
	m.reset()
	lineMemories.Put(m)
}

// reset zeroes what m lent and drops its chunks past keptLineChunks.
func (m *LineMemory) reset() {
	for c := 0; m.n > 0; c++ {
		k := min(m.n, lineChunk)
		clear(m.chunks[c][:k])
		m.n -= k
	}
	if len(m.chunks) > keptLineChunks {
		clear(m.chunks[keptLineChunks:])
		m.chunks = m.chunks[:keptLineChunks]
	}
}
