package sandbox_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/sandbox"
)

// TestSandboxDocTable holds docs/sandbox.md's table of test tracking
// numbers equal to sandbox.Outcomes: each number, its outcome, and each
// entry's offset, status and whether it is at the hub, in order.
func TestSandboxDocTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/sandbox.md")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile("\\+(\\d+)h `([a-z_]+)`(?: \\(([^)]*)\\))?")
	rows := map[string][]string{}
	var order []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `SIM-") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			t.Fatalf("row %q: %d cells", line, len(cells))
		}
		n := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[n] = []string{strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])}
		order = append(order, n)
	}
	if len(order) != len(sandbox.Outcomes) {
		t.Fatalf("the doc lists %v, the code %d outcomes", order, len(sandbox.Outcomes))
	}
	for i, out := range sandbox.Outcomes {
		if order[i] != out.Number {
			t.Errorf("row %d is %s, the code's %s", i, order[i], out.Number)
		}
		row, ok := rows[out.Number]
		if !ok {
			continue
		}
		if row[0] != out.Outcome {
			t.Errorf("%s: the doc says %q, the code %q", out.Number, row[0], out.Outcome)
		}
		got := entry.FindAllStringSubmatch(row[1], -1)
		if len(got) != len(out.Scans) {
			t.Errorf("%s: the doc lists %d entries, the code %d", out.Number, len(got), len(out.Scans))
			continue
		}
		for j, s := range out.Scans {
			h, _ := strconv.Atoi(got[j][1])
			if time.Duration(h)*time.Hour != s.At || got[j][2] != string(s.Status) || (got[j][3] == "at the hub") != s.AtHub {
				t.Errorf("%s entry %d: the doc says %q, the code %+v", out.Number, j, got[j][0], s)
			}
		}
	}
	if _, ok := sandbox.Lookup(" sim-delivered "); !ok {
		t.Error("a test number is matched ignoring case and spaces around it")
	}
	if _, ok := sandbox.Lookup("SIM-DELIVERED-2"); ok {
		t.Error("another number matched a test number")
	}
}
