package orderread_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/orderread"
	"logistics/internal/resourceid"
)

// Lines and Page for no orders read nothing: their statement texts end in
// an IN list, and "IN ()" is an error on PostgreSQL.
func TestNoOrdersReadNothing(t *testing.T) {
	counter := &apptest.StatementCounter{}
	srv := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	ctx := srv.Ctx(environment.Production)
	counter.Reset()
	for _, order := range []orderread.LineOrder{orderread.ByID, orderread.AsIndexed} {
		if err := orderread.Lines(ctx, nil, map[resourceid.ID]*ent.Order{}, order, orderread.WithTimes); err != nil {
			t.Fatalf("Lines of no orders: %v", err)
		}
	}
	if err := orderread.Page(ctx, nil); err != nil {
		t.Fatalf("Page of no orders: %v", err)
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
		t.Helper()
		var out struct{ ID string }
		r := srv.Do(t, "POST", srv.Base(environment.Production)+path, body, nil)
		if r.JSON(t, &out); r.StatusCode != 201 || out.ID == "" {
			t.Fatalf("POST %s: %d", path, r.StatusCode)
		}
		return out.ID
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
		lock := &orderread.Lock{}
		if forUpdate {
			tctx, lock = orderread.ForUpdate(tctx)
		}
		if o, err = orderread.Order(tctx, id); err != nil || o == nil {
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
