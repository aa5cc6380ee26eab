package eventlog

import (
	"context"
	"time"

	"logistics/ent"
)

// Clock tells an environment's time, read with the transaction's client c:
// the sandbox's test clock (internal/sandbox), which lives in its database.
// An event's occurred_at is its transaction's Clock time; created_at stays
// the real time it was written.
type Clock func(ctx context.Context, c *ent.Client) (time.Time, error)

type clockKey struct{}

// NewClockContext returns ctx carrying the environment's clock
// (environment.NewContext installs it).
func NewClockContext(ctx context.Context, c Clock) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, clockKey{}, c)
}

// ClockFromContext returns the clock of ctx, or nil (real time).
func ClockFromContext(ctx context.Context) Clock {
	c, _ := ctx.Value(clockKey{}).(Clock)
	return c
}

// Occurred returns the time the events of ctx's transaction carry in
// occurred_at: the environment's clock read once per transaction (the first
// call reads it), or the real time without a clock. Outside a transaction
// started with Begin it reads the clock with ctx's client.
func Occurred(ctx context.Context) (time.Time, error) {
	now := time.Now().UTC()
	if b, _ := ctx.Value(batchKey{}).(*batch); b != nil {
		return b.occurredAt(ctx, now)
	}
	if c := ClockFromContext(ctx); c != nil {
		if client := ent.FromContext(ctx); client != nil {
			t, err := c(ctx, client)
			return t.UTC().Truncate(time.Microsecond), err
		}
	}
	return now.Truncate(time.Microsecond), nil
}

// SetOccurred fixes the occurred_at of the events of ctx's transaction (a
// simulated carrier's entry carries the time it fell due, not the time the
// clock was advanced to). It does nothing outside such a transaction.
func SetOccurred(ctx context.Context, t time.Time) {
	if b, _ := ctx.Value(batchKey{}).(*batch); b != nil {
		t = t.UTC().Truncate(time.Microsecond)
		b.mu.Lock()
		b.occurred = &t
		b.mu.Unlock()
	}
}

// occurredAt is the batch's occurred_at: now without a clock, the clock's
// time (read once) with one.
func (b *batch) occurredAt(ctx context.Context, now time.Time) (time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.occurred != nil {
		return *b.occurred, nil
	}
	if b.clock == nil {
		return now, nil
	}
	t, err := b.clock(ctx, b.tx.Client())
	if err != nil {
		return time.Time{}, err
	}
	t = t.UTC().Truncate(time.Microsecond)
	b.occurred = &t
	return t, nil
}
