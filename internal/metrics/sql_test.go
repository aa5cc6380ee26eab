package metrics

import (
	"context"
	stdsql "database/sql"
	"path/filepath"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/mattn/go-sqlite3"
)

// TestTimedDriverKeepsDatabaseSQLCalls: the timer's driver and its
// transactions answer ExecContext and QueryContext as the driver under it
// does — ent's Tx.ExecContext and Client.ExecContext assert them, and the
// idempotency store sets PostgreSQL's lock_timeout through one — and time
// them.
func TestTimedDriverKeepsDatabaseSQLCalls(t *testing.T) {
	ctx := context.Background()
	db, err := stdsql.Open("sqlite3", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := New()
	s := r.Statements("test")
	drv := s.Wrap(entsql.OpenDB(dialect.SQLite, db))
	type execQuerier interface {
		ExecContext(context.Context, string, ...any) (stdsql.Result, error)
		QueryContext(context.Context, string, ...any) (*stdsql.Rows, error)
	}
	d, ok := drv.(execQuerier)
	if !ok {
		t.Fatal("the timed driver has no ExecContext/QueryContext")
	}
	if _, err := d.ExecContext(ctx, "CREATE TABLE x (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	tx, err := drv.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txq, ok := tx.(execQuerier)
	if !ok {
		t.Fatal("the timed transaction has no ExecContext/QueryContext")
	}
	if _, err := txq.ExecContext(ctx, "INSERT INTO x (id) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	rows, err := txq.QueryContext(ctx, "SELECT id FROM x")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	body, _ := scrape(t, r)
	for _, kind := range []string{"insert", "select", "other", "commit"} {
		if !strings.Contains(body, `logistics_db_statement_duration_seconds_count{environment="test",kind="`+kind+`"} 1`) {
			t.Errorf("no %s statement timed:\n%s", kind, body)
		}
	}
}
