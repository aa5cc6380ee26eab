package sqlite

/*
#include <stdint.h>
// Defined by the SQLite amalgamation that github.com/mattn/go-sqlite3 links
// into the binary.
extern int64_t sqlite3_memory_used(void);
extern int64_t sqlite3_memory_highwater(int resetFlag);
extern int64_t sqlite3_soft_heap_limit64(int64_t n);
*/
import "C"

// DefaultMemory is the soft bound on what SQLite keeps in memory across the
// whole process when Config.Memory is 0.
//
// Every connection may cache up to 64 MiB of pages (_cache_size: a bulk
// import touches many index pages), and a server holds up to 16 connections
// (8 per environment): unbounded, their caches grew with every page read and
// took a W4 run's peak RSS past 200 MiB. Under the bound a
// connection that needs a page reuses one of its own least recently used
// ones instead of allocating: caches stop growing once their sum reaches it,
// and a write transaction spills dirty pages to the log earlier. The pages
// stay in the operating system's file cache either way.
const DefaultMemory = 64 << 20

// Memory is what SQLite's allocator holds in this process: the page
// caches of every connection of every database, prepared statements and
// their working memory.
type Memory struct {
	Used      int64 // bytes now
	Highwater int64 // the most since the process started
	Limit     int64 // the soft bound (0: none)
}

// ReadMemory returns SQLite's figures for this process.
func ReadMemory() Memory {
	return Memory{
		Used:      int64(C.sqlite3_memory_used()),
		Highwater: int64(C.sqlite3_memory_highwater(0)),
		Limit:     int64(C.sqlite3_soft_heap_limit64(-1)),
	}
}

// limitMemory sets SQLite's soft heap limit, which is the process's,
// not a connection's: n > 0 bytes, 0 DefaultMemory, < 0 none.
func limitMemory(n int64) {
	switch {
	case n == 0:
		n = DefaultMemory
	case n < 0:
		n = 0 // SQLite's "no limit"
	}
	C.sqlite3_soft_heap_limit64(C.int64_t(n))
}
