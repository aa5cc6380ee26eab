package apptest

import (
	"context"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// StatementCounter counts the SQL statements sent through the drivers it
// wraps; pass its Wrap as Options.Driver. It keeps the text of those sent
// outside a transaction too (Outside).
type StatementCounter struct {
	n       atomic.Int64
	mu      sync.Mutex
	outside []string
}

// Wrap wraps a driver so that every Exec and Query is counted.
func (c *StatementCounter) Wrap(d dialect.Driver) dialect.Driver { return &countingDriver{d, c} }

// Reset sets the count to zero and forgets the statements kept.
func (c *StatementCounter) Reset() {
	c.n.Store(0)
	c.mu.Lock()
	c.outside = nil
	c.mu.Unlock()
}

// Outside returns the statements sent outside a transaction since the last
// Reset, in order.
func (c *StatementCounter) Outside() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.outside...)
}

func (c *StatementCounter) keep(q string) {
	c.n.Add(1)
	c.mu.Lock()
	c.outside = append(c.outside, q)
	c.mu.Unlock()
}

// Count returns the statements counted since the last Reset.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

type countingDriver struct {
	dialect.Driver
	c *StatementCounter
}

func (d *countingDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.c.keep(q)
	return d.Driver.Exec(ctx, q, args, v)
}

func (d *countingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.c.keep(q)
	return d.Driver.Query(ctx, q, args, v)
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &countingTx{tx, d.c}, nil
}

type countingTx struct {
	dialect.Tx
	c *StatementCounter
}

func (t *countingTx) Exec(ctx context.Context, q string, args, v any) error {
	t.c.n.Add(1)
	return t.Tx.Exec(ctx, q, args, v)
}

func (t *countingTx) Query(ctx context.Context, q string, args, v any) error {
	t.c.n.Add(1)
	return t.Tx.Query(ctx, q, args, v)
}
