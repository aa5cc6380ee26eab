package migrations

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// dataStep is a migration's part written in Go, run in the migration's
// transaction: Before right before the SQL file of the same name (the part
// of the file name after the version, the same in every dialect), After
// right after it. A file that drops or rewrites data is written with the
// generator's -allow-destructive, which marks it (DestructiveMarker), and
// is applied only with a step here that says where the data goes — copied
// by the After step of an earlier, additive file, and checked by this
// one's Before — (docs/operations.md, Migrations, has a worked example).
type dataStep struct {
	Before, After func(ctx context.Context, q querier, dia string) error
}

var dataSteps = map[string]dataStep{
	"initial": {After: eventLogRows},
}

// DestructiveMarker is the first line the generator writes in a file whose
// change drops or rewrites data.
const DestructiveMarker = "-- logistics:destructive"

func isDestructive(f migrate.File) bool {
	return strings.HasPrefix(string(f.Bytes()), DestructiveMarker)
}

// eventLogRows writes the rows the event log's tables start with — the
// sequence counter at the highest number given, the endpoints' stamp at a
// random value (a process that outlives a database recreated under it
// cannot mistake the new one's endpoints for the old one's) — and numbers
// events that have no number and are not pending (written before
// sequences existed), in (created_at, id) order after the numbered ones.
// Each part keeps what is there, so it also runs when an earlier release's
// database is adopted.
func eventLogRows(ctx context.Context, q querier, dia string) error {
	return EventLogRows(ctx, q, dia)
}

// EventLogRows is the first file's data step (eventLogRows) on its own: the
// event log's tests run it on rows that stand for an earlier release's
// (events without numbers, no stamp row) without rebuilding that release's
// schema. q is a *sql.DB, *sql.Conn or *sql.Tx.
func EventLogRows(ctx context.Context, q querier, dia string) error {
	ph := func(n int) string { return placeholder(dia, n) }
	stamp := rand.Int64()
	if _, err := q.ExecContext(ctx, "INSERT INTO webhook_endpoints_stamp (id, stamp) VALUES (1, "+ph(1)+") ON CONFLICT (id) DO NOTHING", stamp); err != nil {
		return err
	}
	// Instances already serving number events under the counter row's
	// lock (the sequencer): take it too, so numbers are never given twice.
	if dia == dialect.Postgres {
		if _, err := q.ExecContext(ctx, "SELECT last_value FROM event_counter WHERE id = 1 FOR UPDATE"); err != nil {
			return err
		}
	}
	var max int64
	if err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(sequence), 0) FROM events").Scan(&max); err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, "SELECT id FROM events WHERE sequence IS NULL AND pending_order IS NULL ORDER BY created_at, id")
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		max++
		if _, err := q.ExecContext(ctx, "UPDATE events SET sequence = "+ph(1)+" WHERE id = "+ph(2), max, id); err != nil {
			return err
		}
	}
	if _, err := q.ExecContext(ctx, "INSERT INTO event_counter (id, last_value) VALUES (1, "+ph(1)+") ON CONFLICT (id) DO NOTHING", max); err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, "UPDATE event_counter SET last_value = "+ph(1)+" WHERE id = 1 AND last_value < "+ph(2), max, max)
	return err
}

// placeholder is the n-th bind parameter in dia's spelling. Migrations keep
// their own: the packages that have one (the read side) sit above them.
func placeholder(dia string, n int) string {
	if dia == dialect.Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}
