package nullsort

import (
	"strings"
	"testing"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

func statement(t *testing.T, o *Order, null bool, c *entgql.Cursor[string]) (string, bool) {
	t.Helper()
	w, ok, err := Where(o, null, c)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "", false
	}
	s := sql.Dialect(dialect.Postgres).Select("id").From(sql.Table("orders"))
	w(s)
	o.OrderBy(null)(s)
	q, _ := s.Query()
	return q, true
}

func TestSegments(t *testing.T) {
	asc := entgql.OrderDirectionAsc
	desc := entgql.OrderDirectionDesc
	v := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	o := &Order{Columns: []string{"due_at"}, Directions: []entgql.OrderDirection{desc}, ID: "id", IDDirection: asc}

	// A cursor with a value: its segment from the cursor on (a range the
	// index starts at), then every null.
	c := &entgql.Cursor[string]{ID: "ord_5", Value: []any{v}}
	q, ok := statement(t, o, false, c)
	want := `SELECT "id" FROM "orders" WHERE "orders"."due_at" IS NOT NULL AND "orders"."due_at" <= $1 AND ("orders"."due_at" < $2 OR ("orders"."due_at" = $3 AND "orders"."id" > $4)) ORDER BY "orders"."due_at" DESC, "orders"."id" ASC`
	if !ok || q != want {
		t.Fatalf("values after a value:\n got %s\nwant %s", q, want)
	}
	if q, ok := statement(t, o, true, c); !ok || q != `SELECT "id" FROM "orders" WHERE "orders"."due_at" IS NULL ORDER BY "orders"."id" ASC` {
		t.Fatalf("nulls after a value: %v %s", ok, q)
	}
	// A cursor in the nulls: no values are after it.
	n := &entgql.Cursor[string]{ID: "ord_5", Value: []any{nil}}
	if _, ok := statement(t, o, false, n); ok {
		t.Fatal("values after a null cursor")
	}
	if q, _ := statement(t, o, true, n); !strings.Contains(q, `"orders"."due_at" IS NULL AND "orders"."id" > $1`) {
		t.Fatalf("nulls after a null cursor: %s", q)
	}
	// Backward (last/before): the nulls come first in scan order.
	b := &Order{Columns: []string{"due_at"}, Directions: []entgql.OrderDirection{asc}, ID: "id", IDDirection: desc, Reverse: true}
	if s := b.Segments(); len(s) != 2 || !s[0] {
		t.Fatalf("backward segments %v", s)
	}
	if _, ok := statement(t, b, true, c); ok {
		t.Fatal("backward: nulls before a value cursor")
	}
	// NOT NULL columns: one segment, still a range.
	nn := &Order{Columns: []string{"occurred_at"}, Directions: []entgql.OrderDirection{asc}, ID: "id", IDDirection: asc, NotNull: true}
	if s := nn.Segments(); len(s) != 1 || s[0] {
		t.Fatalf("not null segments %v", s)
	}
	// Forged cursors are errors, not statements.
	for _, bad := range []*entgql.Cursor[string]{{ID: "x", Value: v}, {ID: "x", Value: []any{v, v}}} {
		if _, _, err := Where(o, false, bad); err == nil {
			t.Errorf("cursor %v accepted", bad.Value)
		}
	}
	two := &Order{Columns: []string{"due_at", "priority"}, Directions: []entgql.OrderDirection{asc, asc}, ID: "id", IDDirection: asc}
	if _, _, err := Where(two, false, &entgql.Cursor[string]{ID: "x", Value: []any{v, nil}}); err == nil {
		t.Error("a null for the second key accepted")
	}
}

// The single-statement form (nested connections) ORs the segments, and
// sorts the values first.
func TestPredicateAndExpr(t *testing.T) {
	o := &Order{Columns: []string{"due_at"}, Directions: []entgql.OrderDirection{entgql.OrderDirectionAsc}, ID: "id", IDDirection: entgql.OrderDirectionAsc}
	if p, err := Predicate[string](o, nil, nil); p != nil || err != nil {
		t.Fatalf("no cursor: %v %v", p != nil, err)
	}
	p, err := Predicate(o, &entgql.Cursor[string]{ID: "ord_5", Value: []any{time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	s := sql.Dialect(dialect.SQLite).Select("id").From(sql.Table("orders"))
	p(s)
	s.OrderExpr(o.Expr())
	q, _ := s.Query()
	want := "SELECT `id` FROM `orders` WHERE (`orders`.`due_at` IS NOT NULL AND `orders`.`due_at` >= ? AND (`orders`.`due_at` > ? OR (`orders`.`due_at` = ? AND `orders`.`id` > ?))) OR `orders`.`due_at` IS NULL ORDER BY `due_at` IS NULL, `due_at` ASC, `id` ASC"
	if q != want {
		t.Fatalf("\n got %s\nwant %s", q, want)
	}
}
