package main

import (
	"context"
	"strings"
	"testing"
)

// TestBenchRuns proves the benchmark works, briefly (no figures: the machine
// running the suite is busy): every event arrives in both modes.
func TestBenchRuns(t *testing.T) {
	for _, args := range [][]string{
		{"--rate", "50", "--duration", "1s", "--grace", "20s"},
		{"--mode", "drain", "--backlog", "100", "--grace", "20s"},
	} {
		var out strings.Builder
		if err := run(context.Background(), args, &out); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		if !strings.Contains(out.String(), " 0 lost") || !strings.Contains(out.String(), "deliveries/s") {
			t.Errorf("%v:\n%s", args, out.String())
		}
		t.Logf("%v:\n%s", args, out.String())
	}
}
