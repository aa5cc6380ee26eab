package view_test

import (
	"context"
	"os"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/internal/database"
	"logistics/internal/view"
)

// BenchmarkPageWith reads a page of 50 orders' newest tracking entries and
// lines as REST's pages do (every column), from the database in
// ORDERREAD_BENCH_DB (a seeded scale-1 sandbox: `logistics seed --env
// sandbox --scale 1`; a SQLite path or a postgres:// DSN), through the
// service's own driver ("own": on SQLite go-sqlite3's connection itself, on
// PostgreSQL one pgx pipeline) and through a wrapped one ("wrapped":
// database/sql's rows, one statement after the other, as inside a
// transaction).
//
//	ORDERREAD_BENCH_DB=/tmp/db/sb0.db go test -run '^$' -bench PageWith -count 6 ./internal/view
func BenchmarkPageWith(b *testing.B) {
	dsn := os.Getenv("ORDERREAD_BENCH_DB")
	if dsn == "" {
		b.Skip("ORDERREAD_BENCH_DB is not set")
	}
	ctx := context.Background()
	for _, status := range []string{"open", "shipped"} {
		for _, how := range []string{"own", "wrapped"} {
			b.Run(status+"/"+how, func(b *testing.B) {
				var opt database.Options
				if how == "wrapped" {
					opt.Driver = func(d dialect.Driver) dialect.Driver { return wrapped{d} }
				}
				db, err := database.Open(ctx, dsn, opt)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				ctx := ent.NewContext(ctx, db.Client)
				orders, err := db.Client.Order.Query().Where(order.Status(status)).Order(order.ByID()).Limit(50).All(ctx)
				if err != nil || len(orders) == 0 {
					b.Fatalf("%d %s orders: %v", len(orders), status, err)
				}
				r := view.OrderRead{Tracking: true, Lines: true, LineOrder: view.ByID, LineColumns: view.AllLineColumns}
				b.ReportAllocs()
				for b.Loop() {
					if err := view.PageWith(ctx, orders, r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// wrapped hides the driver's database: view reads through database/sql.
type wrapped struct{ dialect.Driver }
