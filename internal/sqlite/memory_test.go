package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestMemoryBounded reads a 24 MB table through four connections of a
// pool whose connections may each cache 64 MiB: SQLite's memory grows past
// 64 MiB without a bound, and stays near a 16 MiB one (the pages are still
// read: the sums are right).
func TestMemoryBounded(t *testing.T) {
	defer limitMemory(0)
	for _, tc := range []struct {
		name     string
		bound    int64
		min, max int64 // of SQLite's growth
	}{
		{"none", -1, 64 << 20, 1 << 40},
		{"16MiB", 16 << 20, 0, 20 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			before := ReadMemory().Used
			db, err := Open(ctx, filepath.Join(t.TempDir(), "mem.db"), Config{Memory: tc.bound})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := ReadMemory().Limit; got != max(tc.bound, 0) {
				t.Fatalf("limit %d, want %d", got, max(tc.bound, 0))
			}
			const rows, size = 24_000, 1000
			if _, err := db.SQL.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?)
INSERT INTO t SELECT x, randomblob(?) FROM c`, rows, size); err != nil {
				t.Fatal(err)
			}
			peak := ReadMemory().Used
			var conns []*sql.Conn
			for range 4 {
				c, err := db.SQL.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				conns = append(conns, c)
			}
			for i, c := range conns {
				var n int64
				if err := c.QueryRowContext(ctx, "SELECT sum(length(b)) FROM t").Scan(&n); err != nil || n != rows*size {
					t.Fatalf("connection %d read %d bytes, %v", i, n, err)
				}
				peak = max(peak, ReadMemory().Used)
			}
			grew := peak - before
			t.Logf("SQLite's memory grew by %.1f MiB", float64(grew)/(1<<20))
			if grew < tc.min || grew > tc.max {
				t.Fatalf("SQLite's memory grew by %d bytes, want %d…%d", grew, tc.min, tc.max)
			}
		})
	}
}
