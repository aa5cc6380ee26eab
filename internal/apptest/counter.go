package apptest

import (
	"context"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// StatementCounter counts the SQL statements sent through the drivers it
// wraps; pass its Wrap as Options.Driver.
type StatementCounter struct{ n atomic.Int64 }

// Wrap wraps a driver so that every Exec and Query is counted.
func (c *StatementCounter) Wrap(d dialect.Driver) dialect.Driver { return &countingDriver{d, c} }

// Reset sets the count to zero.
func (c *StatementCounter) Reset() { c.n.Store(0) }

// Count returns the statements counted since the last Reset.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

type countingDriver struct {
	dialect.Driver
	c *StatementCounter
}

func (d *countingDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.c.n.Add(1)
	return d.Driver.Exec(ctx, q, args, v)
}

func (d *countingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.c.n.Add(1)
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
