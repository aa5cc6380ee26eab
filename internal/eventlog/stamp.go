package eventlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/ent/hook"
)

// The endpoints' stamp lets the webhook fan-out (internal/webhooks: one
// delivery row per matching endpoint, written with each event) keep the
// enabled endpoints in memory without ever using a stale set, on any
// instance. The stamp is one row of the database; every change of a webhook
// endpoint gives it a new random value in the change's own transaction
// (StampEndpoints), so a snapshot that sees a stamp sees exactly the
// endpoints of the change that wrote it. A statement that writes a
// transaction's events (write: SQLite's numbering, PostgreSQL's INSERT with
// the pending orders) reads the stamp too, at no extra round trip, and the
// fan-out, which runs as the events are inserted, reuses the set it read
// under the same stamp (EndpointsStamp).
//
// Random, not a counter: a transaction that changes an endpoint sees its own
// stamp, and if it rolls back after its fan-out cached the set it saw, a
// counter would hand the same number to the next change, with other
// endpoints. A random value of 63 bits is never written twice.

// stampTable holds the endpoints' stamp: one row, id 1.
const stampTable = "webhook_endpoints_stamp"

// stampSQL is a scalar subquery reading the stamp (NULL before the
// migration made the row).
const stampSQL = "(SELECT stamp FROM " + stampTable + " WHERE id = 1)"

// StampEndpoints is the ent hook, installed on every client (internal/app),
// that gives the stamp a new value in the transaction of each webhook
// endpoint mutation. It refuses a mutation outside a transaction: the
// change and its stamp must commit together. The stamp is written before
// the change, so every endpoint writer takes the stamp row's lock first and
// two of them cannot deadlock on it.
var StampEndpoints ent.Hook = func(next ent.Mutator) ent.Mutator {
	return hook.WebhookEndpointFunc(func(ctx context.Context, m *ent.WebhookEndpointMutation) (ent.Value, error) {
		if _, err := m.Tx(); err != nil {
			return nil, errors.New("eventlog: a webhook endpoint is written in a transaction (its stamp commits with it)")
		}
		drv := m.Client().Driver()
		stmt := "UPDATE " + stampTable + " SET stamp = ? WHERE id = 1"
		if drv.Dialect() == dialect.Postgres {
			stmt = "UPDATE " + stampTable + " SET stamp = $1 WHERE id = 1"
		}
		var res sql.Result
		if err := drv.Exec(ctx, stmt, []any{newStamp()}, &res); err != nil {
			return nil, fmt.Errorf("eventlog: endpoints' stamp: %w", err)
		}
		return next.Mutate(ctx, m)
	})
}

func newStamp() int64 { return rand.Int64() }

type stampKey struct{}

// EndpointsStamp returns the endpoints' stamp that the statement numbering
// (or inserting) the events being inserted read, in their transaction: ent
// hooks on Event creation and insert listeners (OnInsert) get it from their
// context. ok is false for events
// written otherwise, and before the migration made the stamp's row.
func EndpointsStamp(ctx context.Context) (stamp int64, ok bool) {
	stamp, ok = ctx.Value(stampKey{}).(int64)
	return stamp, ok
}

// withStamp returns ctx carrying the stamp read, if any.
func withStamp(ctx context.Context, s sql.NullInt64) context.Context {
	if !s.Valid {
		return ctx
	}
	return context.WithValue(ctx, stampKey{}, s.Int64)
}

// readStamp reads the stamp in a statement of its own (PostgreSQL's
// counter path, which numbers after the inserts).
func readStamp(ctx context.Context, q querier) (sql.NullInt64, error) {
	var s sql.NullInt64
	err := counterRow(ctx, q, "SELECT "+stampSQL, []any{}, &s)
	return s, err
}
