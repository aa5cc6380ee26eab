package view_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// PageWith for no orders reads nothing: their statement texts end in
// an IN list, and "IN ()" is an error on PostgreSQL.
func TestNoOrdersReadNothing(t *testing.T) {
	counter := &apptest.StatementCounter{}
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	ctx := srv.Ctx(environment.Production)
	counter.Reset()
	if err := view.PageWith(ctx, nil, view.OrderRead{Tracking: true, Lines: true}); err != nil {
		t.Fatalf("PageWith of no orders: %v", err)
	}
	if n := counter.Count(); n != 0 {
		t.Fatalf("%d statements for no orders: %v", n, counter.Statements())
	}
}

// TestForUpdateLocksTheOrder: on PostgreSQL, Order under ForUpdate holds
// the order's row as an UPDATE would until its transaction ends — another
// transaction's UPDATE of the order waits (here: gives up after its
// lock_timeout) — and without it holds nothing; the order read is the same.
// On SQLite, whose write transactions hold the database's lock, it reads as
// always and takes nothing.
func TestForUpdateLocksTheOrder(t *testing.T) {
	srv := apptest.New(t)
	post := func(path string, body map[string]any) string {
		return srv.Create(t, environment.Production, path, body)
	}
	hub := post("/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	id := resourceid.ID(post("/v1/orders", map[string]any{"hub_id": hub}))
	ctx := srv.Ctx(environment.Production)
	db := srv.Env(environment.Production).DB

	// read reads the order in a transaction, under ForUpdate or not, then
	// tries to update it from another; it reports whether that waited.
	read := func(forUpdate bool) (o *ent.Order, taken, blocked bool) {
		t.Helper()
		tx, err := ent.FromContext(ctx).Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		tctx := ent.NewContext(ctx, tx.Client())
		lock := &view.Lock{}
		if forUpdate {
			tctx, lock = view.ForUpdate(tctx)
		}
		if o, err = view.OrderWith(tctx, id, view.OrderRead{}); err != nil || o == nil {
			t.Fatalf("Order: %v, %v", o, err)
		}
		if !apptest.Postgres() {
			return o, lock.Taken(), false
		}
		other, err := db.SQL.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Rollback()
		if _, err := other.Exec(`SET LOCAL lock_timeout = '200ms'`); err != nil {
			t.Fatal(err)
		}
		_, err = other.Exec(`UPDATE orders SET customer_ref = 'other' WHERE id = $1`, string(id))
		if err != nil && !strings.Contains(err.Error(), "55P03") {
			t.Fatalf("the other UPDATE: %v", err)
		}
		return o, lock.Taken(), err != nil
	}
	plain, taken, blocked := read(false)
	if taken || blocked {
		t.Fatalf("without ForUpdate: lock taken %v, other UPDATE waited %v", taken, blocked)
	}
	locked, taken, blocked := read(true)
	if taken != apptest.Postgres() || blocked != apptest.Postgres() {
		t.Fatalf("with ForUpdate (PostgreSQL %v): lock taken %v, other UPDATE waited %v", apptest.Postgres(), taken, blocked)
	}
	if !reflect.DeepEqual(plain, locked) {
		t.Fatalf("read with the lock\n%+v\nwithout\n%+v", locked, plain)
	}
}

// TestPipelineReadsAsOneByOne: OrderWith through the environment's own
// client (on PostgreSQL: one pipeline, the three statements in one round
// trip; on SQLite: on go-sqlite3's connection, outside database/sql's rows)
// reads what the same statements sent one after the other through
// database/sql read (through a wrapped driver, which is neither): an order with every
// field, lines and entries with and without a hub; one with none of them;
// an id with no order. A pipeline's statements are counted as statements.
func TestPipelineReadsAsOneByOne(t *testing.T) {
	srv, post := withCatalog(t)
	full := post("/v1/orders", map[string]any{"hub": "AMS1", "customer_ref": "C-1", "due_at": "2026-12-01T09:30:00.123456Z",
		"ship_to": map[string]any{"name": "A. Smith", "line1": "Main St 1", "city": "Utrecht", "postal_code": "3511", "country": "NL"},
		"lines":   []any{map[string]any{"sku": "P-2", "quantity": 2}, map[string]any{"sku": "P-1", "quantity": 1}}})
	for i, hub := range []any{"AMS1", nil, "AMS1", nil} {
		e := map[string]any{"order_id": full, "tracking_number": "TN" + string(rune('0'+i)), "carrier": "DHL", "status": "in_transit",
			"occurred_at": "2026-01-0" + string(rune('1'+i)) + "T10:00:00Z"}
		if hub != nil {
			e["hub"] = hub
		}
		post("/v1/tracking-entries", e)
	}
	bare := post("/v1/orders", map[string]any{"hub": "AMS1"})
	missing := resourceid.New(resourceid.Order)

	ctx := srv.Ctx(environment.Production)
	drv := ent.FromContext(ctx).Driver()
	if got := view.Pipelined(drv) != nil; got != apptest.Postgres() {
		t.Fatalf("the environment's client pipelines: %v, want %v (PostgreSQL)", got, apptest.Postgres())
	}
	counter := &apptest.StatementCounter{}
	seqCtx := ent.NewContext(ctx, ent.NewClient(ent.Driver(counter.Wrap(drv))))
	if got := view.SQLiteOwn(drv) != nil; got == apptest.Postgres() {
		t.Fatalf("the environment's client reads on go-sqlite3's connection: %v, want %v (SQLite)", got, !apptest.Postgres())
	}
	if view.Pipelined(counter.Wrap(drv)) != nil || view.SQLiteOwn(counter.Wrap(drv)) != nil {
		t.Fatal("a wrapped driver pipelines or reads on the driver's connection")
	}
	for _, r := range []view.OrderRead{
		{Tracking: true, Lines: true, LineOrder: view.ByID, LineColumns: view.AllLineColumns},
		{Lines: true, LineOrder: view.AsIndexed, LineColumns: 0},
		{Tracking: true},
		{},
	} {
		for _, id := range []resourceid.ID{full, bare, missing} {
			piped, err := view.OrderWith(ctx, id, r)
			if err != nil {
				t.Fatalf("%+v %s: %v", r, id, err)
			}
			counter.Reset()
			one, err := view.OrderWith(seqCtx, id, r)
			if err != nil {
				t.Fatalf("%+v %s one by one: %v", r, id, err)
			}
			if !reflect.DeepEqual(piped, one) {
				t.Errorf("%+v %s:\npipelined  %+v\none by one %+v", r, id, piped, one)
			}
			want, lines, entries := int64(1), 0, 0
			if r.Lines {
				want, lines = want+1, 2
			}
			if r.Tracking {
				want, entries = want+1, 3
			}
			if id == missing {
				want = 1 // the order's statement finds nothing: the rest are not sent
			}
			if n := counter.Count(); n != want {
				t.Errorf("%+v %s: %d statements one by one, want %d", r, id, n, want)
			}
			switch {
			case id == missing && piped != nil:
				t.Errorf("an id with no order read %+v", piped)
			case id == full && (len(piped.Edges.Lines) != lines || len(piped.Edges.TrackingEntries) != entries):
				t.Errorf("%+v: %d lines, %d entries, want %d and %d", r, len(piped.Edges.Lines), len(piped.Edges.TrackingEntries), lines, entries)
			}
		}
	}
	// A page's entries and lines (REST's pages), the same way.
	page := func(ctx context.Context) []*ent.Order {
		t.Helper()
		var orders []*ent.Order
		for _, id := range []resourceid.ID{bare, full} {
			o, err := view.OrderWith(ctx, id, view.OrderRead{})
			if err != nil || o == nil {
				t.Fatalf("Order %s: %v, %v", id, o, err)
			}
			orders = append(orders, o)
		}
		if err := view.PageWith(ctx, orders, view.OrderRead{Tracking: true, Lines: true, LineOrder: view.ByID, LineColumns: view.AllLineColumns}); err != nil {
			t.Fatalf("PageWith: %v", err)
		}
		return orders
	}
	piped, one := page(ctx), page(seqCtx)
	if !reflect.DeepEqual(piped, one) {
		t.Errorf("a page:\npipelined  %+v\none by one %+v", piped, one)
	}
	// A page read as rows with every column (REST's) goes one statement
	// after the other on PostgreSQL; one read as entities is pipelined.
	if !view.PipelinesPage(view.OrderRead{Tracking: true, Lines: true}) ||
		view.PipelinesPage(view.OrderRead{Tracking: true, TrackingRows: new(view.Rows[view.Tracking])}) ||
		view.PipelinesPage(view.OrderRead{Lines: true, LineRows: new(view.Rows[view.Line])}) {
		t.Error("PageWith pipelines a page read as entities, and only such a page")
	}
	if f := piped[1]; len(f.Edges.Lines) != 2 || len(f.Edges.TrackingEntries) != view.LatestTracking || piped[0].Edges.Lines == nil {
		t.Errorf("a page: %d lines, %d entries", len(f.Edges.Lines), len(f.Edges.TrackingEntries))
	}
}

// TestCancelledReadsLeaveThePoolUsable: reads whose request goes away at any
// point — before, during or after the pipeline's round trip — give their
// connection back (a pgx connection cancelled mid-batch is closed and
// dropped by database/sql), and the next read answers in full. The
// deadlines spread over 0–3× an uncancelled read measured first, so each
// case is hit on a fast machine and a loaded one alike; a connection still
// in use 30 s later (background users hold theirs for milliseconds) is a
// leak, and the failure says who holds what.
func TestCancelledReadsLeaveThePoolUsable(t *testing.T) {
	srv := apptest.New(t)
	var out struct{ ID resourceid.ID }
	r := srv.Do(t, "POST", srv.Base(environment.Production)+"/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}}, nil)
	if r.StatusCode != 201 {
		t.Fatalf("hub: %d", r.StatusCode)
	}
	r = srv.Do(t, "POST", srv.Base(environment.Production)+"/v1/orders", map[string]any{"hub": "AMS1"}, nil)
	if r.JSON(t, &out); r.StatusCode != 201 {
		t.Fatalf("order: %d", r.StatusCode)
	}
	ctx := srv.Ctx(environment.Production)
	read := view.OrderRead{Tracking: true, Lines: true, LineOrder: view.ByID, LineColumns: view.AllLineColumns}
	env := srv.Env(environment.Production)
	db := env.DB.SQL
	if env.DB.Dialect == dialect.Postgres {
		// The event log's listener holds one connection for good once it
		// listens: take the baseline after that.
		select {
		case <-env.Events.Listening():
		case <-time.After(30 * time.Second):
			t.Fatal("the event log's listener did not start")
		}
	}
	took := make([]time.Duration, 21)
	for i := range took {
		start := time.Now()
		if _, err := view.OrderWith(ctx, out.ID, read); err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(start)
	}
	slices.Sort(took)
	typical := took[len(took)/2]
	settle := func(held int, within time.Duration) int {
		n := db.Stats().InUse
		for deadline := time.Now().Add(within); n > held && time.Now().Before(deadline); n = db.Stats().InUse {
			time.Sleep(10 * time.Millisecond)
		}
		return n
	}
	held := settle(0, time.Second) // what background users hold between their turns
	cancelled := 0
	for i := range 300 {
		// A read cut short closes its connection: an uncancelled read first
		// leaves a live one in the pool, or every read after the first
		// cancelled one would be cut short while connecting.
		if _, err := view.OrderWith(ctx, out.ID, read); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, time.Duration(i%100)*3*typical/100)
		if _, err := view.OrderWith(cctx, out.ID, read); err != nil {
			cancelled++
		}
		cancel()
	}
	if n := settle(held, 30*time.Second); n > held {
		t.Fatalf("%d connections in use 30 s after the cancelled reads, %d before\n%s", n, held, poolUsers(db))
	}
	o, err := view.OrderWith(ctx, out.ID, read)
	if err != nil || o == nil || o.ID != out.ID || o.Edges.Lines == nil || o.Edges.TrackingEntries == nil {
		t.Fatalf("the read after them: %+v, %v", o, err)
	}
	if cancelled == 0 || cancelled == 300 {
		t.Fatalf("%d of 300 reads cancelled: the deadlines miss the cases", cancelled)
	}
	t.Logf("%d of 300 reads cancelled (deadlines 0–%v; an uncancelled read took %v)", cancelled, 3*typical, typical)
}

// poolUsers describes who holds connections of db's pool: the sessions
// PostgreSQL sees on the test's database, and the goroutines of this process
// inside database/sql or pgx — what a failure of the test above needs to
// tell a leak from a background user.
func poolUsers(db *sql.DB) string {
	var b strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT pid, state, coalesce(now() - xact_start, '0')::text, left(query, 200) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		fmt.Fprintf(&b, "pg_stat_activity: %v\n", err)
	} else {
		for rows.Next() {
			var pid int
			var state, age, query string
			if err := rows.Scan(&pid, &state, &age, &query); err != nil {
				fmt.Fprintf(&b, "pg_stat_activity: %v\n", err)
				break
			}
			fmt.Fprintf(&b, "session %d %s (transaction %s): %s\n", pid, state, age, query)
		}
		rows.Close()
	}
	all := make([]byte, 1<<22)
	all = all[:runtime.Stack(all, true)]
	for _, g := range strings.Split(string(all), "\n\n") {
		if strings.Contains(g, "database/sql") || strings.Contains(g, "jackc/pgx") {
			b.WriteString(g + "\n\n")
		}
	}
	return b.String()
}

// TestPageWithLentLineMemory: a page read with a LineMemory holds what one
// read with fresh entities holds; after the memory is taken back (Reset, as
// Release does before pooling it), the page's lines are zero, and a page
// read again into the same memory with fewer columns carries none of the
// earlier read's columns.
func TestPageWithLentLineMemory(t *testing.T) {
	srv, post := withCatalog(t)
	ids := []resourceid.ID{
		post("/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{map[string]any{"sku": "P-2", "quantity": 2}, map[string]any{"sku": "P-1", "quantity": 1}}}),
		post("/v1/orders", map[string]any{"hub": "AMS1"}),
		post("/v1/orders", map[string]any{"hub": "AMS1", "lines": []any{map[string]any{"sku": "P-1", "quantity": 5}}}),
	}
	ctx := srv.Ctx(environment.Production)
	page := func(cols view.LineColumns, mem *view.LineMemory) []*ent.Order {
		t.Helper()
		var orders []*ent.Order
		for _, id := range ids {
			o, err := view.OrderWith(ctx, id, view.OrderRead{})
			if err != nil || o == nil {
				t.Fatalf("Order %s: %v, %v", id, o, err)
			}
			orders = append(orders, o)
		}
		if err := view.PageWith(ctx, orders, view.OrderRead{Lines: true, LineOrder: view.AsIndexed, LineColumns: cols, LineMemory: mem}); err != nil {
			t.Fatalf("PageWith: %v", err)
		}
		return orders
	}
	mem := view.NewLineMemory()
	defer mem.Release()
	lent := page(view.AllLineColumns, mem)
	if fresh := page(view.AllLineColumns, nil); !reflect.DeepEqual(lent, fresh) {
		t.Fatalf("read into lent memory:\n%+v\nfresh:\n%+v", lent, fresh)
	}
	if n := len(lent[0].Edges.Lines) + len(lent[2].Edges.Lines); n != 3 || lent[0].Edges.Lines[0].Edges.Part.Sku == "" || lent[0].Edges.Lines[0].CreatedAt.IsZero() {
		t.Fatalf("%d lines, first %+v", n, lent[0].Edges.Lines[0])
	}
	first := lent[0].Edges.Lines[0]
	mem.Reset()
	if !reflect.DeepEqual(*first, ent.OrderLine{}) {
		t.Fatalf("a line still holds %+v after its memory was taken back", first)
	}
	again := page(0, mem)
	if fresh := page(0, nil); !reflect.DeepEqual(again, fresh) {
		t.Fatalf("read again with fewer columns:\n%+v\nfresh:\n%+v", again, fresh)
	}
	if again[0].Edges.Lines[0] != first {
		t.Fatal("the second read did not reuse the memory the first one was lent")
	}
}

// withCatalog starts a server whose production has hub AMS1 and parts P-1
// (Bolt) and P-2 (Nut), and returns it with a function that creates a
// resource there through REST and returns its id.
func withCatalog(t *testing.T) (*apptest.Server, func(path string, body map[string]any) resourceid.ID) {
	srv := apptest.New(t)
	base := srv.Base(environment.Production)
	post := func(path string, body map[string]any) resourceid.ID {
		t.Helper()
		var out struct{ ID resourceid.ID }
		r := srv.Do(t, "POST", base+path, body, nil)
		if r.JSON(t, &out); r.StatusCode != 201 || out.ID == "" {
			t.Fatalf("POST %s: %d", path, r.StatusCode)
		}
		return out.ID
	}
	post("/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	post("/v1/parts", map[string]any{"sku": "P-1", "part_name": "Bolt"})
	post("/v1/parts", map[string]any{"sku": "P-2", "part_name": "Nut"})
	return srv, post
}
