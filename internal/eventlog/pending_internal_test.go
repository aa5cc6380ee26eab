package eventlog

import (
	"strings"
	"testing"

	"logistics/ent/event"
)

// TestPendingInsertWritesEveryColumn: insertPending (PostgreSQL) and
// insertNumbered (SQLite) write their own INSERTs, so a column added to the
// Event schema must be added to them (or named here as one they leave: the
// sequence to the sequencer, the pending order on SQLite, which has no
// sequencer).
func TestPendingInsertWritesEveryColumn(t *testing.T) {
	if n := strings.Count(numberedValues, "?"); n != numberedArgs {
		t.Fatalf("numberedValues has %d placeholders, want numberedArgs = %d", n, numberedArgs)
	}
	for _, c := range []struct {
		name, stmt string
		args       int
		left       string
	}{
		{"insertPending", pendingInsert, pendingArgs + 1, event.FieldSequence},
		{"insertNumbered", numberedInsert, numberedArgs, event.FieldPendingOrder},
	} {
		cols := strings.TrimSuffix(strings.SplitN(c.stmt, "(", 2)[1], ") VALUES ")
		written := map[string]bool{}
		for _, col := range strings.Split(cols, ", ") {
			written[col] = true
		}
		if len(written) != c.args {
			t.Fatalf("%s: %d columns in %q, want %d", c.name, len(written), c.stmt, c.args)
		}
		for _, col := range event.Columns {
			if !written[col] && col != c.left {
				t.Errorf("column %s of events is not written by %s", col, c.name)
			}
		}
	}
}
