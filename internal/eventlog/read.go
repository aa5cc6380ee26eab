package eventlog

import (
	"context"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/predicate"
)

// PollInterval is how often Poll re-reads the log without a wake-up: a lost
// notification costs a waiter at most this much latency.
const PollInterval = 2 * time.Second

// After reads up to limit events with a sequence greater than after, in
// sequence order, that match every predicate. Paging with the last sequence
// returned never skips an event (see Begin).
func After(ctx context.Context, c *ent.Client, after int64, limit int, where ...predicate.Event) ([]*ent.Event, error) {
	return c.Event.Query().
		Where(event.SequenceGT(int(after))).
		Where(where...).
		Order(ent.Asc(event.FieldSequence)).
		Limit(limit).
		All(ctx)
}

// Poll is After that, when nothing is there yet, waits up to wait for events
// to commit: it re-reads at each wake-up of l (which may be nil) and at least
// every PollInterval. It returns an empty slice when wait passes or ctx ends
// without events. The wake-up channel is taken before each read, so a commit
// between the read and the wait is not missed.
func Poll(ctx context.Context, l *Log, c *ent.Client, after int64, limit int, wait time.Duration, where ...predicate.Event) ([]*ent.Event, error) {
	deadline := time.Now().Add(wait)
	for {
		var wake <-chan struct{}
		if l != nil {
			wake = l.Changed()
		}
		evs, err := After(ctx, c, after, limit, where...)
		if err != nil || len(evs) > 0 {
			return evs, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return evs, nil
		}
		t := time.NewTimer(min(left, PollInterval))
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return evs, nil
		}
		t.Stop()
	}
}
