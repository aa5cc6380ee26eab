package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/internal/apperr"
)

// TestWriteGate: one transaction at a time gets through; a writer that
// waits out the limit gets 503 database_busy (not SQLite's busy error, a
// 500), a cancelled one its context's error; every waiting writer gets in
// once the holder ends, committed or rolled back.
// begin opens a transaction of g and runs a statement in it: a transaction
// goes through the gate at its first statement, not when it is opened.
func begin(ctx context.Context, g *gatedDriver) (dialect.Tx, error) {
	tx, err := g.Tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := tx.Exec(ctx, "SELECT 1", []any{}, nil); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// gatedFile opens a SQLite file with a table n (v INTEGER) behind a gate
// whose writers wait at most timeout.
func gatedFile(t *testing.T, timeout time.Duration) (*sql.DB, *gatedDriver) {
	t.Helper()
	db, err := sql.Open("sqlite3", withDefaults(filepath.Join(t.TempDir(), "gate.db"), "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE n (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	return db, &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newGroupGate(timeout)}
}

func TestWriteGate(t *testing.T) {
	db, g := gatedFile(t, 100*time.Millisecond)
	ctx := context.Background()

	held, err := begin(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := begin(ctx, g)
	if e := apperr.From(err); e == nil || e.Code != "database_busy" || e.Kind.Status() != 503 {
		t.Fatalf("a writer past the limit: %v, want 503 database_busy", err)
	}
	if busy != nil { // an interface holding a nil *connTx is not nil
		t.Fatalf("a refused writer got a transaction: %#v", busy)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := begin(cctx, g); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled writer: %v", err)
	}
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}

	// 32 writers at once: all commit, none waits out the limit.
	g = &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newGroupGate(10 * time.Second)}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			tx, err := g.Tx(ctx)
			if err != nil {
				errs <- err
				return
			}
			if err := tx.Exec(ctx, "INSERT INTO n (v) VALUES (1)", []any{}, nil); err != nil {
				_ = tx.Rollback()
				errs <- err
				return
			}
			errs <- tx.Commit()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM n").Scan(&n); err != nil || n != 32 {
		t.Fatalf("rows: %d %v", n, err)
	}
}

// TestWriteTxEnds: a gated transaction (BEGIN IMMEDIATE on a connection of
// its own) keeps its writes only when it commits, ends once, gives its
// connection back with no transaction open even when COMMIT fails (a
// deferred foreign key), and is not cut short by its context ending after
// it began.
func TestWriteTxEnds(t *testing.T) {
	db, err := sql.Open("sqlite3", withDefaults(filepath.Join(t.TempDir(), "tx.db"), "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every transaction on the same connection
	for _, q := range []string{
		"CREATE TABLE p (id INTEGER PRIMARY KEY)",
		"CREATE TABLE c (pid INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	g := &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: newGroupGate(time.Second)}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(ctx context.Context, tx dialect.Tx, q string) {
		t.Helper()
		if err := tx.Exec(ctx, q, []any{}, nil); err != nil {
			t.Fatal(err)
		}
	}

	// Rolled back: nothing stays; a second end is ErrTxDone.
	tx, err := begin(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	insert(context.Background(), tx, "INSERT INTO p (id) VALUES (1)")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("commit after rollback: %v, want ErrTxDone", err)
	}
	if n := count("p"); n != 0 {
		t.Fatalf("%d rows after a rollback", n)
	}

	// COMMIT fails on the deferred key: the error is returned, nothing
	// stays, and the connection takes the next transaction.
	tx, err = begin(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	insert(context.Background(), tx, "INSERT INTO c (pid) VALUES (7)")
	if err := tx.Commit(); err == nil {
		t.Fatal("COMMIT with a dangling deferred key succeeded")
	}
	if n := count("c"); n != 0 {
		t.Fatalf("%d rows after a failed commit", n)
	}

	// A context that ends after BEGIN does not cut the transaction short.
	ctx, cancel := context.WithCancel(context.Background())
	tx, err = begin(ctx, g)
	if err != nil {
		t.Fatalf("the connection after a failed commit: %v", err)
	}
	insert(ctx, tx, "INSERT INTO p (id) VALUES (2)")
	cancel()
	insert(ctx, tx, "INSERT INTO p (id) VALUES (3)")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count("p"); n != 2 {
		t.Fatalf("%d rows committed, want 2", n)
	}
}

// TestTxBeginsAtFirstStatement: opening a transaction takes nothing; its
// first statement goes through the gate (and waits there, or is refused
// after the limit); one ended without a statement never took the gate.
func TestTxBeginsAtFirstStatement(t *testing.T) {
	db, g := gatedFile(t, 100*time.Millisecond)
	ctx := context.Background()
	held, err := begin(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	entries := g.gate.entries.Load()

	// Opened and ended while another holds the gate: no wait, no entry.
	idle, err := g.Tx(ctx)
	if err != nil {
		t.Fatalf("opening a transaction while the gate is held: %v", err)
	}
	if err := idle.Commit(); err != nil {
		t.Fatalf("committing a transaction that ran nothing: %v", err)
	}
	if err := idle.Rollback(); !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("a second end: %v, want ErrTxDone", err)
	}
	if n := g.gate.entries.Load() - entries; n != 0 {
		t.Fatalf("a transaction that ran nothing entered the gate %d times", n)
	}

	// Its first statement waits at the gate, and past the limit is refused
	// (503) without running.
	late, err := g.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = late.Exec(ctx, "INSERT INTO n (v) VALUES (1)", []any{}, nil)
	if e := apperr.From(err); e == nil || e.Code != "database_busy" {
		t.Fatalf("a first statement past the limit: %v, want 503 database_busy", err)
	}
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Once the gate is free the next statement begins it.
	if err := late.Exec(ctx, "INSERT INTO n (v) VALUES (2)", []any{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []int
	rows, err := db.Query("SELECT v FROM n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if len(got) != 1 || got[0] != 2 {
		t.Fatalf("rows %v, want [2]", got)
	}
}

// TestWriteLockFigures: the gate counts the transactions it lets in, the
// COMMITs of their groups, the time they held it (at least what a holder slept inside) and the time a
// second writer waited behind the first.
func TestWriteLockFigures(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	client := ent.NewClient(ent.Driver(db.Driver()))
	before := db.WriteLock()
	held, err := client.Tx(ctx)
	if err == nil {
		_, err = held.ExecContext(ctx, "SELECT 1") // begins: through the gate
	}
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		tx, err := client.Tx(ctx)
		if err == nil {
			if _, err = tx.ExecContext(ctx, "SELECT 1"); err == nil { // waits behind held
				err = tx.Rollback()
			}
		}
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	after := db.WriteLock()
	if n := after.Entries - before.Entries; n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
	// The second joined the first's group (it waited at the gate when the
	// first ended) and rolled its part back: one COMMIT for the two.
	if n := after.Commits - before.Commits; n != 1 {
		t.Errorf("%d COMMITs, want 1", n)
	}
	if d := after.Held - before.Held; d < 50*time.Millisecond {
		t.Errorf("held %v, want at least the 50 ms the first holder kept it", d)
	}
	// How long the second writer queued depends on when it got to the
	// gate (up to the 50 ms); that it counted is what is checked.
	if d := after.Wait - before.Wait; d <= 0 {
		t.Errorf("waited %v", d)
	}
}

// groupFixture is a gated SQLite file with a table n (v INTEGER) and a
// child table whose key to p is checked only at COMMIT.
type groupFixture struct {
	t  *testing.T
	db *sql.DB
	g  *gatedDriver
}

func newGroupFixture(t *testing.T) *groupFixture {
	db, err := sql.Open("sqlite3", withDefaults(filepath.Join(t.TempDir(), "group.db"), "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		"CREATE TABLE n (v INTEGER)",
		"CREATE TABLE p (id INTEGER PRIMARY KEY)",
		"CREATE TABLE c (pid INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	gate := newGroupGate(10 * time.Second)
	gate.maxAge = time.Minute // the tests pause inside groups
	return &groupFixture{t: t, db: db, g: &gatedDriver{Driver: entsql.OpenDB(dialect.SQLite, db), db: db, gate: gate}}
}

// values is what another connection reads of n, in order.
func (f *groupFixture) values() []int {
	f.t.Helper()
	rows, err := f.db.Query("SELECT v FROM n ORDER BY v")
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// queued waits until n writers wait at the gate.
func (f *groupFixture) queued(n int) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		f.g.gate.mu.Lock()
		l := len(f.g.gate.queue)
		f.g.gate.mu.Unlock()
		if l == n {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%d writers queued, want %d", l, n)
		}
	}
}

// member is a transaction run by its own goroutine: it is begun at once
// (queueing at the gate), runs what it is sent, and ends on "commit" or
// "rollback"; ended reports the end's outcome.
type member struct {
	work  chan string
	ended chan error
}

func (f *groupFixture) begin() *member {
	m := &member{work: make(chan string), ended: make(chan error, 1)}
	go func() {
		ctx := context.Background()
		tx, err := begin(ctx, f.g)
		if err != nil {
			m.ended <- err
			return
		}
		for q := range m.work {
			switch q {
			case "commit":
				m.ended <- tx.Commit()
				return
			case "rollback":
				m.ended <- tx.Rollback()
				return
			}
			if err := tx.Exec(ctx, q, []any{}, nil); err != nil {
				_ = tx.Rollback()
				m.ended <- err
				return
			}
		}
	}()
	return m
}

func (m *member) run(qs ...string) {
	for _, q := range qs {
		m.work <- q
	}
}

// pending fails the test if m has ended.
func (m *member) pending(t *testing.T, name string) {
	t.Helper()
	select {
	case err := <-m.ended:
		t.Fatalf("%s ended (%v) before its group's COMMIT", name, err)
	case <-time.After(20 * time.Millisecond):
	}
}

func (m *member) result() error {
	select {
	case err := <-m.ended:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("no end after 10 s")
	}
}

// TestGroupCommit: transactions that queue behind a holder run in its
// SQLite transaction and are answered at its one COMMIT, not before; one
// that rolls back takes only its own writes with it; the gate's figures
// count the transactions and the one COMMIT.
func TestGroupCommit(t *testing.T) {
	f := newGroupFixture(t)
	first := f.begin()
	first.run("INSERT INTO n VALUES (1)")
	a := f.begin()
	f.queued(1)
	b := f.begin()
	f.queued(2)
	c := f.begin()
	f.queued(3) // in this order

	first.run("commit") // hands the open transaction to a
	a.run("INSERT INTO n VALUES (2)")
	first.pending(t, "the first")
	if v := f.values(); len(v) != 0 {
		t.Fatalf("another connection reads %v before the group's COMMIT", v)
	}
	a.run("commit")
	b.run("INSERT INTO n VALUES (3)", "rollback") // its part only
	c.run("INSERT INTO n VALUES (4)")
	first.pending(t, "the first")
	a.pending(t, "the second")
	c.run("commit") // nobody waits: COMMIT for all
	for name, m := range map[string]*member{"first": first, "a": a, "b": b, "c": c} {
		if err := m.result(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if v := f.values(); !slices.Equal(v, []int{1, 2, 4}) {
		t.Fatalf("committed %v, want [1 2 4]", v)
	}
	if got := f.g.gate.entries.Load(); got != 4 {
		t.Errorf("%d entries, want 4", got)
	}
	if got := f.g.gate.commits.Load(); got != 1 {
		t.Errorf("%d COMMITs, want 1 for the group", got)
	}

	// A group whose COMMIT fails (a deferred key left dangling by its
	// second transaction) fails every transaction in it, keeps nothing,
	// and leaves the connection without a transaction.
	first = f.begin()
	first.run("INSERT INTO n VALUES (5)")
	a = f.begin()
	f.queued(1)
	first.run("commit")
	a.run("INSERT INTO c (pid) VALUES (7)", "commit")
	if err := first.result(); err == nil {
		t.Fatal("the first transaction of a group whose COMMIT failed: no error")
	}
	if err := a.result(); err == nil {
		t.Fatal("the transaction with the dangling key: no error")
	}
	if v := f.values(); !slices.Equal(v, []int{1, 2, 4}) {
		t.Fatalf("after a failed group: %v, want [1 2 4]", v)
	}
	last := f.begin()
	last.run("INSERT INTO n VALUES (6)", "commit")
	if err := last.result(); err != nil {
		t.Fatalf("a transaction after the failed group: %v", err)
	}
	if v := f.values(); !slices.Equal(v, []int{1, 2, 4, 6}) {
		t.Fatalf("after a failed group and one more: %v", v)
	}

	// A full group (here of one) is committed even with a writer waiting.
	f.g.gate.maxLen = 1
	commits := f.g.gate.commits.Load()
	first = f.begin()
	first.run("INSERT INTO n VALUES (7)") // it holds the gate
	a = f.begin()
	f.queued(1)
	first.run("commit")
	if err := first.result(); err != nil {
		t.Fatal(err)
	}
	if v := f.values(); !slices.Equal(v, []int{1, 2, 4, 6, 7}) {
		t.Fatalf("a full group not committed: %v", v)
	}
	a.run("rollback")
	if err := a.result(); err != nil {
		t.Fatal(err)
	}
	if got := f.g.gate.commits.Load() - commits; got != 1 {
		t.Errorf("%d COMMITs for a group of one, want 1", got)
	}
}

// TestGroupEndsForOthers: a writer that is not an ent transaction (the
// checkpointer, the benchmark's floor) never runs inside a group: the group
// is committed before it gets in. A member whose SQLite transaction ends
// under it (here an explicit ROLLBACK; an I/O error does the same) breaks
// its group: the transactions already in it get an error, and the
// connection goes back without a transaction.
func TestGroupEndsForOthers(t *testing.T) {
	f := newGroupFixture(t)
	first := f.begin()
	first.run("INSERT INTO n VALUES (1)")
	a := f.begin()
	f.queued(1)
	other := make(chan []int, 1)
	go func() {
		leave, err := f.g.gate.enter(context.Background())
		if err != nil {
			t.Error(err)
			other <- nil
			return
		}
		defer leave()
		other <- f.values() // what is committed when it gets in
	}()
	f.queued(2)
	first.run("commit")
	a.run("INSERT INTO n VALUES (2)", "commit")
	if err := first.result(); err != nil {
		t.Fatal(err)
	}
	if err := a.result(); err != nil {
		t.Fatal(err)
	}
	if v := <-other; !slices.Equal(v, []int{1, 2}) {
		t.Fatalf("the plain writer got in with %v committed, want [1 2]", v)
	}

	first = f.begin()
	first.run("INSERT INTO n VALUES (3)")
	a = f.begin()
	f.queued(1)
	first.run("commit")
	a.run("ROLLBACK", "rollback")
	if err := a.result(); err == nil {
		t.Fatal("a member whose transaction SQLite ended: no error from its rollback")
	}
	if err := first.result(); err == nil {
		t.Fatal("the first transaction of a broken group: no error")
	}
	// The same when the member commits instead: its savepoint is gone.
	first = f.begin()
	first.run("INSERT INTO n VALUES (5)")
	a = f.begin()
	f.queued(1)
	first.run("commit")
	a.run("INSERT INTO n VALUES (6)", "ROLLBACK", "commit")
	if err := a.result(); err == nil {
		t.Fatal("a member that commits after SQLite ended its transaction: no error")
	}
	if err := first.result(); err == nil {
		t.Fatal("the first transaction of a group broken at a commit: no error")
	}
	last := f.begin()
	last.run("INSERT INTO n VALUES (4)", "commit")
	if err := last.result(); err != nil {
		t.Fatalf("a transaction after the broken groups: %v", err)
	}
	if v := f.values(); !slices.Equal(v, []int{1, 2, 4}) {
		t.Fatalf("committed %v, want [1 2 4]", v)
	}
}

// TestGroupKilled: a process killed (SIGKILL) while a group of
// transactions is open — the first waiting for the group's COMMIT, the
// second written but not ended — loses the whole group and nothing
// committed before it; none of the group's transactions had been answered,
// and the file opens clean and takes writes.
func TestGroupKilled(t *testing.T) {
	if path := os.Getenv("GROUP_CHILD_DB"); path != "" {
		groupChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "g.db")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGroupKilled$")
	cmd.Env = append(os.Environ(), "GROUP_CHILD_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said []string
	for lines := bufio.NewScanner(out); lines.Scan(); {
		said = append(said, lines.Text())
		if lines.Text() == "open" || strings.HasPrefix(lines.Text(), "error") {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed
	if !slices.Equal(said, []string{"committed", "open"}) {
		t.Fatalf("the child said %q, want committed, open (nothing of the open group answered)", said)
	}
	db, err := Open(context.Background(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.SQL.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	var vs []int
	rows, err := db.SQL.Query("SELECT v FROM g ORDER BY v")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	rows.Close()
	if !slices.Equal(vs, []int{1}) {
		t.Fatalf("rows after the kill: %v, want [1] (the committed one, nothing of the open group)", vs)
	}
	tx, err := db.BeginWrite(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(context.Background(), "INSERT INTO g (v) VALUES (4)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("a write after the kill: %v", err)
	}
}

// groupChild is TestGroupKilled's child: it commits one row, then leaves a
// group open (two rows in it) and waits to be killed. It prints what
// happened; "answered" would be a Commit returning before its group's
// COMMIT.
func groupChild(path string) {
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(1)
	}
	ctx := context.Background()
	db, err := Open(ctx, path, Config{})
	if err != nil {
		fail(err)
	}
	if _, err := db.SQL.Exec("CREATE TABLE g (v INTEGER)"); err != nil {
		fail(err)
	}
	db.gate.maxAge = time.Hour
	insert := func(v int) WriteTx {
		tx, err := db.BeginWrite(ctx)
		if err == nil {
			_, err = tx.ExecContext(ctx, "INSERT INTO g (v) VALUES (?)", v)
		}
		if err != nil {
			fail(err)
		}
		return tx
	}
	if err := insert(1).Commit(); err != nil {
		fail(err)
	}
	fmt.Println("committed")
	first := insert(2)
	joined := make(chan WriteTx)
	go func() { joined <- insert(3) }() // queues behind first
	for {
		db.gate.mu.Lock()
		n := len(db.gate.queue)
		db.gate.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	go func() {
		if err := first.Commit(); err != nil {
			fail(err)
		}
		fmt.Println("answered")
	}()
	<-joined // its row written in the group first left open
	fmt.Println("open")
	select {}
}

// TestGateAlone: the one-writer gate without the group-commit layer lets
// writers in one at a time, in arrival order, and one that waits past the
// timeout leaves the queue with 503 database_busy.
func TestGateAlone(t *testing.T) {
	ctx := context.Background()
	g := &gate{timeout: 10 * time.Second}
	if err := g.admit(ctx, false); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []int
		in    int // writers inside at once
		most  int
	)
	done := make(chan error, 3)
	for i := range 3 {
		go func() {
			err := g.admit(ctx, false)
			if err == nil {
				mu.Lock()
				in++
				most = max(most, in)
				order = append(order, i)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				in--
				mu.Unlock()
				g.leave()
			}
			done <- err
		}()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			g.mu.Lock()
			n := len(g.queue)
			g.mu.Unlock()
			if n == i+1 {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("writer %d did not queue", i)
			}
		}
	}
	g.leave()
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(order) != "[0 1 2]" || most != 1 {
		t.Fatalf("let in %v, at most %d at once; want [0 1 2], one at a time", order, most)
	}
	if g.held || g.entries.Load() != 4 {
		t.Fatalf("held %v after the last left, %d entries; want free, 4", g.held, g.entries.Load())
	}

	g = &gate{timeout: 20 * time.Millisecond}
	if err := g.admit(ctx, false); err != nil {
		t.Fatal(err)
	}
	err := g.admit(ctx, false)
	if e := apperr.From(err); e == nil || e.Code != "database_busy" {
		t.Fatalf("a writer past the timeout: %v, want 503 database_busy", err)
	}
	if len(g.queue) != 0 {
		t.Fatalf("%d writers still queued after the one that timed out left", len(g.queue))
	}
}
