package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// opsServer is a test service with the development dataset, W4's stock and
// the operation workloads' fixture, and a floor on its sandbox database.
func opsServer(t *testing.T) (*apptest.Server, fixture, http.Handler) {
	t.Helper()
	srv := apptest.New(t)
	ctx := srv.Ctx(environment.Sandbox)
	if _, err := devSeed(ctx, srv.App.Service, testSize); err != nil {
		t.Fatal(err)
	}
	var fix fixture
	if err := prepareW4(ctx, srv.App.Service, &fix); err != nil {
		t.Fatal(err)
	}
	env := srv.Env(environment.Sandbox)
	pg := env.DB.Dialect == dialect.Postgres
	if err := findOrders(ctx, env.DB.SQL, pg, &fix); err != nil {
		t.Fatal(err)
	}
	if len(fix.Parts) != w4Parts || len(fix.Items) != w4Parts || len(fix.Orders) == 0 || len(fix.Shipped) == 0 {
		t.Fatalf("fixture %+v", fix)
	}
	if err := topUpW4(ctx, env.DB.SQL, pg, fix, 100); err != nil {
		t.Fatal(err)
	}
	return srv, fix, newFloor(env.DB).Handler()
}

// doer sends requests through the test server (REST, GraphQL, with its
// sandbox key) or the floor's handler.
func doer(t *testing.T, srv *apptest.Server, fl http.Handler, iface string) func(request) (int, []byte) {
	return func(r request) (int, []byte) {
		if iface == ifFloor {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(r.Method, r.Path, strings.NewReader(string(r.Body)))
			req.Header = r.Header
			fl.ServeHTTP(rec, req)
			return rec.Code, rec.Body.Bytes()
		}
		var body any
		if r.Body != nil {
			body = r.Body
		}
		res := srv.Do(t, r.Method, srv.SandboxURL+r.Path, body, r.Header)
		return res.StatusCode, res.Body
	}
}

// TestOpsParity runs one operation of each of W4–W6 through REST, GraphQL
// and the floor on a small seeded database (SQLite, or PostgreSQL under
// LOGISTICS_TEST_POSTGRES) and checks that their answers agree, that W4
// ends allocated with its reservations consistent, and that W5 wrote one
// entry per interface.
func TestOpsParity(t *testing.T) {
	srv, fix, fl := opsServer(t)
	env := srv.Env(environment.Sandbox)
	pg := env.DB.Dialect == dialect.Postgres
	for _, w := range opWorkloads {
		answers := map[string]string{}
		for _, iface := range allInterfaces {
			if !w.serves(iface) {
				continue
			}
			codes, bodies := runOp(w, iface, "", "", opVars(fix, w, 0), doer(t, srv, fl, iface))
			if len(codes) != len(w.Ops[iface]) {
				t.Fatalf("%s %s: %d of %d steps ran: %v %s", w.Name, iface, len(codes), len(w.Ops[iface]), codes, bodies[len(bodies)-1])
			}
			last := bodies[len(bodies)-1]
			if o := outcome(codes[len(codes)-1], last); o != "ok" {
				t.Fatalf("%s %s: %s, HTTP %d: %s", w.Name, iface, o, codes[len(codes)-1], last)
			}
			a, err := normalAnswer(w, iface, last)
			if err != nil {
				t.Fatalf("%s %s: %v: %s", w.Name, iface, err, last)
			}
			answers[iface] = a
		}
		if answers[ifREST] != answers[ifFloor] || answers[ifGraphQL] != answers[ifFloor] {
			t.Errorf("%s answers differ:\nrest    %s\ngraphql %s\nfloor   %s", w.Name, answers[ifREST], answers[ifGraphQL], answers[ifFloor])
		}
		switch w.Name {
		case "W4":
			if !strings.HasPrefix(answers[ifFloor], "status=allocated ") || strings.Count(answers[ifFloor], "×") != 3 {
				t.Errorf("W4 answer %s: want allocated with 3 lines", answers[ifFloor])
			}
			sum, err := checkW4(srv.Ctx(environment.Sandbox), env.DB.SQL, pg, fix)
			if err != nil || !strings.Contains(sum, "20 items hold 18 reserved = the allocated quantity of 3 allocated orders") {
				t.Errorf("W4 check: %q, %v", sum, err)
			}
		case "W5":
			var n int
			q := "SELECT COUNT(*) FROM tracking_entries WHERE tracking_number = ?"
			if pg {
				q = dollarPlaceholders(q)
			}
			if err := env.DB.SQL.QueryRow(q, "BENCH-1").Scan(&n); err != nil || n != 3 {
				t.Errorf("W5 wrote %d entries, want 3 (%v)", n, err)
			}
		case "W6":
			if !strings.Contains(answers[ifFloor], fix.Orders[0]) || strings.Contains(answers[ifFloor], "lines=[]") {
				t.Errorf("W6 answer %s: want order %s with lines", answers[ifFloor], fix.Orders[0])
			}
		}
	}
}

// TestW4ConflictsAndInvariant: with too little stock the allocation fails
// with insufficient_stock through every interface (the only error W4
// expects) and reserves nothing; then the post-run check fails on a database
// state that breaks each part of the invariant.
func TestW4ConflictsAndInvariant(t *testing.T) {
	srv, fix, fl := opsServer(t)
	ctx := srv.Ctx(environment.Sandbox)
	env := srv.Env(environment.Sandbox)
	pg := env.DB.Dialect == dialect.Postgres
	if err := topUpW4(ctx, env.DB.SQL, pg, fix, 2); err != nil {
		t.Fatal(err)
	}
	w := workloadByName("W4")
	for _, iface := range allInterfaces {
		if !w.serves(iface) {
			continue
		}
		codes, bodies := runOp(w, iface, "", "", opVars(fix, w, 0), doer(t, srv, fl, iface))
		last := bodies[len(bodies)-1]
		if len(codes) != 3 || outcome(codes[2], last) != "conflict" {
			t.Fatalf("%s: %v, want the allocation refused with insufficient_stock: %s", iface, codes, last)
		}
		if iface != ifGraphQL && codes[2] != http.StatusConflict {
			t.Errorf("%s: HTTP %d, want 409", iface, codes[2])
		}
	}
	sum, err := checkW4(ctx, env.DB.SQL, pg, fix)
	if err != nil || !strings.Contains(sum, "hold 0 reserved") {
		t.Fatalf("after refused allocations: %q, %v", sum, err)
	}
	// Allocate one order (p1 1, p2 2, p3 3 units) with enough stock.
	if err := topUpW4(ctx, env.DB.SQL, pg, fix, 10); err != nil {
		t.Fatal(err)
	}
	if codes, bodies := runOp(w, ifFloor, "", "", opVars(fix, w, 0), doer(t, srv, fl, ifFloor)); codes[len(codes)-1] != http.StatusOK {
		t.Fatalf("allocate: %v %s", codes, bodies[len(bodies)-1])
	}
	if _, err := checkW4(ctx, env.DB.SQL, pg, fix); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if pg {
			q = dollarPlaceholders(q)
		}
		if _, err := env.DB.SQL.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, break_, undo, want string
	}{
		{"reserved without a reservation (lost)", "UPDATE items SET reserved_quantity = reserved_quantity + 1000 WHERE id = ?", "UPDATE items SET reserved_quantity = reserved_quantity - 1000 WHERE id = ?", "its reservations hold"},
		{"negative reserved", "UPDATE items SET reserved_quantity = reserved_quantity - 100000 WHERE id = ?", "UPDATE items SET reserved_quantity = reserved_quantity + 100000 WHERE id = ?", "is negative"},
		{"double reservation of a line", "UPDATE order_lines SET allocated_quantity = allocated_quantity * 2 WHERE part_id = (SELECT part_id FROM items WHERE id = ?) AND allocated_quantity > 0", "UPDATE order_lines SET allocated_quantity = allocated_quantity / 2 WHERE part_id = (SELECT part_id FROM items WHERE id = ?) AND allocated_quantity > 0", "double reservation"},
	} {
		exec(c.break_, fix.Items[0])
		_, err := checkW4(ctx, env.DB.SQL, pg, fix)
		exec(c.undo, fix.Items[0])
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: check says %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := checkW4(ctx, env.DB.SQL, pg, fix); err != nil {
		t.Fatalf("after undoing: %v", err)
	}
}

// TestFloorEventsMatchService: the floor writes the events the service
// writes for the same operation — the same types in the same order, and
// data of the same shape (every key at every level, with its JSON type),
// of a size within a fifth of the service's. A floor writing one small
// event per transaction measured a lighter job than the service's.
func TestFloorEventsMatchService(t *testing.T) {
	srv, fix, fl := opsServer(t)
	env := srv.Env(environment.Sandbox)
	if env.DB.Dialect == dialect.Postgres {
		// As in a load run: the floor's process runs the sequencer, and its
		// events go in unnumbered (writeEvents' pending_order path).
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		f := newFloor(env.DB)
		f.sequence(ctx)
		fl = f.Handler()
	}
	q := "SELECT type, data FROM events WHERE sequence > ? ORDER BY sequence"
	if env.DB.Dialect == dialect.Postgres {
		q = dollarPlaceholders(q)
	}
	written := func(after int64) (types []string, shapes []string, size int, last int64) {
		t.Helper()
		rows, err := env.DB.SQL.Query(q, after)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ, data string
			if err := rows.Scan(&typ, &data); err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				t.Fatalf("%s: %v: %s", typ, err, data)
			}
			types = append(types, typ)
			shapes = append(shapes, typ+" "+jsonShape(v))
			size += len(data)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := env.DB.SQL.QueryRow("SELECT COALESCE(MAX(sequence), 0) FROM events").Scan(&last); err != nil {
			t.Fatal(err)
		}
		return types, shapes, size, last
	}
	_, _, _, last := written(0)
	for _, name := range []string{"W4", "W5"} {
		w := workloadByName(name)
		type result struct {
			types, shapes []string
			size          int
		}
		got := map[string]result{}
		for i, iface := range []string{ifREST, ifFloor} {
			codes, bodies := runOp(w, iface, "", "", opVars(fix, w, i), doer(t, srv, fl, iface))
			if o := outcome(codes[len(codes)-1], bodies[len(bodies)-1]); o != "ok" {
				t.Fatalf("%s %s: %s: %s", name, iface, o, bodies[len(bodies)-1])
			}
			var r result
			r.types, r.shapes, r.size, last = written(last)
			got[iface] = r
		}
		svc, flr := got[ifREST], got[ifFloor]
		t.Logf("%s: service %d events, %d bytes; floor %d events, %d bytes", name, len(svc.types), svc.size, len(flr.types), flr.size)
		if len(svc.types) == 0 || !slices.Equal(svc.types, flr.types) {
			t.Errorf("%s event types:\nservice %v\nfloor   %v", name, svc.types, flr.types)
			continue
		}
		for i := range svc.shapes {
			if svc.shapes[i] != flr.shapes[i] {
				t.Errorf("%s event %d:\nservice %s\nfloor   %s", name, i, svc.shapes[i], flr.shapes[i])
			}
		}
		if d := flr.size - svc.size; d*5 > svc.size || -d*5 > svc.size {
			t.Errorf("%s: the floor's events take %d bytes, the service's %d", name, flr.size, svc.size)
		}
	}
}

// jsonShape describes a decoded JSON value by its keys at every level and
// their JSON types (an array by its first element).
func jsonShape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(k + ":" + jsonShape(v[k]))
		}
		return b.String() + "}"
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + jsonShape(v[0]) + "]"
	case string:
		return "s"
	case float64:
		return "n"
	case bool:
		return "b"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
