package database

import (
	"context"
	"time"

	"logistics/ent"
)

// utcTimes stores every time a mutation writes in UTC. PostgreSQL keeps
// instants (timestamptz), but go-sqlite3 writes a time as text with the
// offset it was given ("2025-06-01 14:00:00+02:00"), and SQLite compares,
// sorts and takes MIN/MAX of that text as text: a filter occurred_at >= …,
// a sort by it or an aggregate's min would put 14:00+02:00 after 13:00Z.
// In UTC the text orders as the instants do, and both databases answer the
// same times (in UTC) whatever offset a client sent.
func utcTimes(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		for _, f := range m.Fields() {
			v, _ := m.Field(f)
			if t, ok := v.(time.Time); ok && t.Location() != time.UTC {
				if err := m.SetField(f, t.UTC()); err != nil {
					return nil, err
				}
			}
		}
		return next.Mutate(ctx, m)
	})
}
