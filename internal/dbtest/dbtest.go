// Package dbtest checks the settings of every connection of a pool, and
// starts throwaway PostgreSQL clusters and streaming replicas of them, for
// the tests of the packages that open databases (internal/database,
// internal/app, the subcommands).
package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Synchronous checks PRAGMA synchronous on every connection db's pool can
// hold, and again on connections opened after the pool recycled them: the
// pool is filled to its maximum (each connection held at once, so none is
// asked twice), then its idle connections are closed, by the idle limit and
// by the lifetime limit, and it is filled again with new ones. want is the
// PRAGMA's number (1 NORMAL, 2 FULL). It returns how many connections it
// checked. The pool's limits are set back to max open and idle, no lifetime.
func Synchronous(t testing.TB, db *sql.DB, want int) int {
	t.Helper()
	ctx := context.Background()
	max := db.Stats().MaxOpenConnections
	if max <= 0 {
		t.Fatalf("the pool has no maximum of open connections: cannot fill it")
	}
	checked := 0
	fill := func(round string) {
		t.Helper()
		conns := make([]*sql.Conn, 0, max)
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range max {
			cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			c, err := db.Conn(cctx)
			cancel()
			if err != nil {
				t.Fatalf("%s: connection %d of %d: %v", round, len(conns)+1, max, err)
			}
			conns = append(conns, c)
			var got int
			if err := c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
				t.Fatalf("%s: connection %d: PRAGMA synchronous: %v", round, len(conns), err)
			}
			if got != want {
				t.Errorf("%s: connection %d of %d: PRAGMA synchronous = %d, want %d", round, len(conns), max, got, want)
			}
			checked++
		}
	}
	fill("first fill")

	before := db.Stats()
	db.SetMaxIdleConns(0) // closes every idle connection
	db.SetMaxIdleConns(max)
	fill("after the idle connections were closed")

	db.SetConnMaxLifetime(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	fill("after the connections' lifetime ran out")
	db.SetConnMaxLifetime(0)

	after := db.Stats()
	if after.MaxIdleClosed == before.MaxIdleClosed || after.MaxLifetimeClosed == before.MaxLifetimeClosed {
		t.Errorf("the pool did not recycle its connections (closed by the idle limit %d → %d, by lifetime %d → %d)",
			before.MaxIdleClosed, after.MaxIdleClosed, before.MaxLifetimeClosed, after.MaxLifetimeClosed)
	}
	return checked
}

// Cluster starts a throwaway PostgreSQL cluster for one test (StartPostgres)
// and returns the DSN of its postgres database.
func Cluster(t testing.TB, settings ...string) string {
	t.Helper()
	return StartPostgres(t, settings...).DSN()
}

// Postgres is a throwaway PostgreSQL cluster of one test, which the test
// may stop and start again.
type Postgres struct {
	bin, dir, data, port string
	opts                 string
	asPostgres           bool // run as the postgres user (the test runs as root)
}

// StartPostgres starts a throwaway PostgreSQL cluster — initdb in a
// temporary directory (as the postgres user when the test runs as root, as
// .ci/run does), on a free 127.0.0.1 port, with settings added to its
// command line (e.g. "fsync=off"). It stops and removes the cluster when
// the test ends. Without initdb it skips, or fails under CI=true.
func StartPostgres(t testing.TB, settings ...string) *Postgres {
	t.Helper()
	bin := postgresBin()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("dbtest: initdb not found (PostgreSQL's server binaries): CI must have them")
		}
		t.Skip("dbtest: initdb not found (PostgreSQL's server binaries)")
	}
	pg := newCluster(t, bin)
	if err := pg.run("initdb", "-D", pg.data, "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	pg.startNew(t, settings)
	return pg
}

// newCluster makes the directory of a cluster (owned by the postgres user
// when the test runs as root) and picks its port.
func newCluster(t testing.TB, bin string) *Postgres {
	t.Helper()
	dir, err := os.MkdirTemp("", "dbtest-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pg := &Postgres{bin: bin, dir: dir, data: filepath.Join(dir, "data"), asPostgres: os.Geteuid() == 0}
	if pg.asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("dbtest: running as root, and no postgres user to run the cluster: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pg.port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	return pg
}

// startNew starts a new cluster with settings, and stops it when the test
// ends.
func (pg *Postgres) startNew(t testing.TB, settings []string) {
	t.Helper()
	pg.opts = "-p " + pg.port + " -c listen_addresses=127.0.0.1 -k " + pg.dir + " -c max_connections=50"
	for _, s := range settings {
		pg.opts += " -c " + s
	}
	if err := pg.Start(); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() {
		if err := pg.Stop(); err != nil {
			t.Logf("dbtest: %v", err)
		}
	})
}

// Replica builds a streaming replica of the running cluster pg —
// pg_basebackup -R (which writes standby.signal and primary_conninfo) into
// a directory of its own — and starts it on another free 127.0.0.1 port
// as a hot standby, with settings added to its command line. It is
// stopped and removed when the test ends; pg's databases and writes reach
// it by streaming replication.
func (pg *Postgres) Replica(t testing.TB, settings ...string) *Postgres {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pg.bin, "pg_basebackup")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("dbtest: pg_basebackup not found beside initdb in %s: CI must have it", pg.bin)
		}
		t.Skipf("dbtest: pg_basebackup not found beside initdb in %s", pg.bin)
	}
	r := newCluster(t, pg.bin)
	if err := r.run("pg_basebackup", "-h", "127.0.0.1", "-p", pg.port, "-U", "postgres", "-D", r.data,
		"-R", "-X", "stream", "--no-sync", "-c", "fast"); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	r.startNew(t, append([]string{"hot_standby=on"}, settings...))
	return r
}

// DSN is the address of the cluster's postgres database.
func (pg *Postgres) DSN() string { return pg.DatabaseDSN("postgres") }

// DatabaseDSN is the address of the cluster's database name.
func (pg *Postgres) DatabaseDSN(name string) string {
	return "postgres://postgres@127.0.0.1:" + pg.port + "/" + name + "?sslmode=disable"
}

// Start starts the cluster (again) on its port.
func (pg *Postgres) Start() error {
	err := pg.run("pg_ctl", "start", "-D", pg.data, "-w", "-t", "60", "-l", filepath.Join(pg.dir, "log"), "-o", pg.opts)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(pg.dir, "log"))
		return fmt.Errorf("%v\n%s", err, log)
	}
	return nil
}

// Stop stops the cluster at once: its connections drop as in a crash.
func (pg *Postgres) Stop() error {
	return pg.run("pg_ctl", "stop", "-D", pg.data, "-m", "immediate")
}

func (pg *Postgres) run(tool string, args ...string) error {
	argv := append([]string{filepath.Join(pg.bin, tool)}, args...)
	var cmd *exec.Cmd
	if pg.asPostgres {
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return nil
}

// postgresBin is the directory of initdb and pg_ctl: on the PATH, or
// Debian's newest /usr/lib/postgresql/N/bin; "" if there is none.
func postgresBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		// A link on the PATH (/usr/local/bin/initdb) leads to the
		// directory of the other tools (pg_basebackup).
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestN := "", -1
	for _, d := range dirs {
		n, err := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if _, serr := os.Stat(filepath.Join(d, "initdb")); err == nil && serr == nil && n > bestN {
			best, bestN = d, n
		}
	}
	return best
}
