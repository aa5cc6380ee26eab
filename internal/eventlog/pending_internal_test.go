package eventlog

import (
	"strings"
	"testing"

	"logistics/ent/event"
)

// TestPendingInsertWritesEveryColumn: insertPending writes its own INSERT,
// so a column added to the Event schema must be added to it (or named here
// as one it leaves to the sequencer).
func TestPendingInsertWritesEveryColumn(t *testing.T) {
	cols := strings.TrimSuffix(strings.SplitN(pendingInsert, "(", 2)[1], ") VALUES ")
	written := map[string]bool{}
	for _, c := range strings.Split(cols, ", ") {
		written[c] = true
	}
	if len(written) != pendingArgs+1 {
		t.Fatalf("%d columns in %q, want pendingArgs+1 = %d", len(written), pendingInsert, pendingArgs+1)
	}
	for _, c := range event.Columns {
		if !written[c] && c != event.FieldSequence {
			t.Errorf("column %s of events is not written by insertPending", c)
		}
	}
}
