package apptest

import (
	"context"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// StatementCounter counts the SQL statements sent through the drivers it
// wraps; pass its Wrap as Options.Driver. It keeps their texts too
// (Statements), and apart those sent outside a transaction (Outside).
type StatementCounter struct {
	n       atomic.Int64
	mu      sync.Mutex
	texts   []string
	outside []string
}

// Wrap wraps a driver so that every Exec and Query is counted.
func (c *StatementCounter) Wrap(d dialect.Driver) dialect.Driver {
	return WrapDriver(d, func(q string, _ any, inTx bool) { c.add(q, inTx) })
}

// Reset sets the count to zero and forgets the kept texts.
func (c *StatementCounter) Reset() {
	c.mu.Lock()
	c.n.Store(0)
	c.texts, c.outside = nil, nil
	c.mu.Unlock()
}

// Statements returns the texts of the statements since the last Reset, in
// the order they were sent.
func (c *StatementCounter) Statements() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

// Outside returns the statements sent outside a transaction since the last
// Reset, in order.
func (c *StatementCounter) Outside() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.outside...)
}

func (c *StatementCounter) add(q string, inTx bool) {
	c.n.Add(1)
	c.mu.Lock()
	c.texts = append(c.texts, q)
	if !inTx {
		c.outside = append(c.outside, q)
	}
	c.mu.Unlock()
}

// Count returns the statements counted since the last Reset.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

// WrapDriver wraps a driver so that seen is called with every statement's
// text and arguments before it is sent, and whether it is sent in a
// transaction. The statement counters of the tests and of bench's
// in-process runs are both made of it.
func WrapDriver(d dialect.Driver, seen func(q string, args any, inTx bool)) dialect.Driver {
	return &countingDriver{d, seen}
}

type countingDriver struct {
	dialect.Driver
	seen func(q string, args any, inTx bool)
}

func (d *countingDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.seen(q, args, false)
	return d.Driver.Exec(ctx, q, args, v)
}

func (d *countingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.seen(q, args, false)
	return d.Driver.Query(ctx, q, args, v)
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &countingTx{tx, d.seen}, nil
}

type countingTx struct {
	dialect.Tx
	seen func(q string, args any, inTx bool)
}

func (t *countingTx) Exec(ctx context.Context, q string, args, v any) error {
	t.seen(q, args, true)
	return t.Tx.Exec(ctx, q, args, v)
}

func (t *countingTx) Query(ctx context.Context, q string, args, v any) error {
	t.seen(q, args, true)
	return t.Tx.Query(ctx, q, args, v)
}
