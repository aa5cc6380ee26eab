package app

import (
	"os"
	"runtime/debug"
	"strconv"
)

// ApplyRuntime sets the Go garbage collector as c says, unless the process
// was started with GOGC or GOMEMLIMIT: the runtime reads those itself, and an
// operator who sets them means them. It returns the settings in effect, as
// log attributes.
//
// Why not Go's default (GOGC=100): a request allocates a few hundred
// kilobytes that are garbage once it is answered, on a live heap of a few
// megabytes, so at 100 the collector runs every few requests. At 400 it runs
// a quarter as often, for a peak RSS that stays far below the 200 MiB
// target at scale 1 (docs/performance.md). The soft limit bounds that
// trade: near it the collector works harder instead of growing the heap.
func (c Config) ApplyRuntime() []any {
	gc, limit := "GOGC="+os.Getenv("GOGC"), "GOMEMLIMIT="+os.Getenv("GOMEMLIMIT")
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(c.GCPercent)
		gc = strconv.Itoa(c.GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = "none"
		if c.MemoryLimit > 0 {
			debug.SetMemoryLimit(int64(c.MemoryLimit) << 20)
			limit = strconv.Itoa(c.MemoryLimit) + "MiB"
		}
	}
	return []any{"gc_percent", gc, "memory_limit", limit}
}

// SQLiteMemoryBytes is --sqlite-memory as database.Options wants it: bytes,
// or -1 for no bound.
func (c Config) SQLiteMemoryBytes() int64 {
	if c.SQLiteMemory == 0 {
		return -1
	}
	return int64(c.SQLiteMemory) << 20
}
