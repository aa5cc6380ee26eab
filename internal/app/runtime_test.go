package app

import (
	"math"
	"runtime/debug"
	"testing"

	"logistics/internal/sqlite"
)

func TestApplyRuntime(t *testing.T) {
	prevGC, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevGC); debug.SetMemoryLimit(prevLimit) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	c := Defaults()
	c.GCPercent, c.MemoryLimit = 250, 300
	got := c.ApplyRuntime()
	if gc := debug.SetGCPercent(100); gc != 250 {
		t.Errorf("GC percent %d, want 250", gc)
	}
	if lim := debug.SetMemoryLimit(-1); lim != 300<<20 {
		t.Errorf("memory limit %d, want %d", lim, 300<<20)
	}
	if got[1] != "250" || got[3] != "300MiB" {
		t.Errorf("reported %v", got)
	}

	// GOGC and GOMEMLIMIT in the environment win: nothing is changed.
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	got = c.ApplyRuntime()
	if gc := debug.SetGCPercent(100); gc != 150 {
		t.Errorf("GC percent %d, want GOGC's 150", gc)
	}
	if lim := debug.SetMemoryLimit(-1); lim != 1<<30 {
		t.Errorf("memory limit %d, want GOMEMLIMIT's", lim)
	}
	if got[1] != "GOGC=150" || got[3] != "GOMEMLIMIT=1GiB" {
		t.Errorf("reported %v", got)
	}

	// No limit when none is configured.
	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	c.MemoryLimit = 0
	if got = c.ApplyRuntime(); got[3] != "none" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("reported %v, limit %d", got, debug.SetMemoryLimit(-1))
	}
}

func TestGCSettingsValidated(t *testing.T) {
	for _, args := range [][]string{{"--gc-percent=0"}, {"--gc-percent=-2"}, {"--memory-limit=-1"}} {
		c := Defaults()
		if _, err := c.Load("serve", args, func(string) string { return "" }); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	c := Defaults()
	if _, err := c.Load("serve", []string{"--gc-percent=-1", "--memory-limit=0"}, func(string) string { return "" }); err != nil {
		t.Errorf("off and none refused: %v", err)
	}
}

// --sqlite-memory bounds SQLite's memory for the process: in MiB, 0 for none,
// applied when the service opens its SQLite databases.
func TestSQLiteMemorySetting(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{nil, sqlite.DefaultMemory},
		{[]string{"--sqlite-memory=32"}, 32 << 20},
		{[]string{"--sqlite-memory=0"}, -1},
	} {
		c := Defaults()
		if _, err := c.Load("serve", tc.args, getenv); err != nil {
			t.Fatal(err)
		}
		if got := c.SQLiteMemoryBytes(); got != tc.want {
			t.Errorf("%v: %d bytes, want %d", tc.args, got, tc.want)
		}
	}
	for _, args := range [][]string{{"--sqlite-memory=-1"}, {"--sqlite-memory=2000000"}} {
		c := Defaults()
		if _, err := c.Load("serve", args, getenv); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}
