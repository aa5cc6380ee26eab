package view

import (
	"context"
	stdsql "database/sql"
	"errors"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/trace"

	"logistics/internal/tracing"
)

// One order's statements (the order, its newest tracking entries, its
// lines) do not depend on each other's answers: each takes the order's id.
// On PostgreSQL a statement's cost on this service is mostly its round trip
// (a write and a read on the socket, 10–20 µs each in system calls on the
// reference machine, more than the statement's own work), so outside a transaction they go in one pgx pipeline
// (pgx.Batch: sent in one write, answered in order) on a connection of the
// pool: GET /v1/orders/{id} three round trips → one, node(id:) two → one.
// They are still separate statements, each with its own snapshot under
// READ COMMITTED, as when sent one after the other: an order changed
// between them is read as before. Inside a transaction (ent's transaction
// keeps its connection to itself) and on SQLite (no round trip) they run
// one after the other; so does a client whose driver is wrapped (the
// statement counters of the tests and the benchmark), which then counts
// the same statements.

// query is one statement of a read and how to scan its rows.
type query struct {
	text string
	args []any
	scan func(rows rowScanner) error
}

// rowScanner is what a query's scan reads: database/sql's rows (through
// ent's driver) or pgx's (in a pipeline). Both give the scanners the same
// values (sql.Scanner targets get database/sql's driver values).
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// run runs qs in order — through the service's own driver (own) on
// PostgreSQL in one pipeline when pipelined, on SQLite on go-sqlite3's
// connection (rawsqlite.go); otherwise one after the other through
// database/sql — and a scan's error (errNoOrder) ends it.
func run(ctx context.Context, drv dialect.Driver, pipelined bool, qs ...query) error {
	switch db := own(ctx, drv); {
	case db == nil:
	case drv.Dialect() == dialect.Postgres && len(qs) > 1 && pipelined:
		if err := pipeline(ctx, db, qs); !errors.Is(err, errNotPgx) {
			return err
		}
	case drv.Dialect() == dialect.SQLite:
		if err := rawSQLite(ctx, db, qs); !errors.Is(err, errNotSQLite) {
			return err
		}
	}
	for _, q := range qs {
		rows := &sql.Rows{}
		if err := drv.Query(ctx, q.text, q.args, rows); err != nil {
			return err
		}
		err := q.scan(rows)
		if err == nil {
			err = rows.Err()
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// own returns the database of a driver that is the service's own — ent's
// (PostgreSQL) or the write gate's over it (SQLite) — not a transaction's
// and not wrapped (a wrapper embeds the driver interface, which has no DB),
// else nil. The read-replica router (internal/database) answers by the
// read's context: nil when the read goes to the replica.
func own(ctx context.Context, drv dialect.Driver) *stdsql.DB {
	if d, ok := drv.(interface {
		DBFor(context.Context) *stdsql.DB
	}); ok {
		return d.DBFor(ctx)
	}
	if d, ok := drv.(interface{ DB() *stdsql.DB }); ok {
		return d.DB()
	}
	return nil
}

// onDriverConn runs f with the driver's connection of one connection of db
// (database/sql's Conn.Raw), which goes back to the pool after.
func onDriverConn(ctx context.Context, db *stdsql.DB, f func(dc any) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(f)
}

// pipeline sends qs in one pgx batch on a connection of db and scans their
// answers in order.
func pipeline(ctx context.Context, db *stdsql.DB, qs []query) error {
	return onDriverConn(ctx, db, func(dc any) error {
		pc, ok := tracing.Unwrap(dc).(*stdlib.Conn)
		if !ok {
			return errNotPgx
		}
		b := &pgx.Batch{}
		for _, q := range qs {
			b.Queue(q.text, q.args...)
		}
		var spans []trace.Span // one per statement when traced: the batch bypasses the traced driver
		if trace.SpanFromContext(ctx).IsRecording() {
			for _, q := range qs {
				spans = append(spans, tracing.StartStatement(ctx, "postgresql", q.text))
			}
		}
		br := pc.Conn().SendBatch(ctx, b)
		for i, q := range qs {
			err := scanBatch(br, q)
			if spans != nil {
				tracing.EndStatement(spans[i], err)
			}
			if err != nil {
				for _, s := range spans[min(i+1, len(spans)):] {
					tracing.EndStatement(s, err)
				}
				_ = br.Close()
				return err
			}
		}
		return br.Close()
	})
}

// errNotPgx: the PostgreSQL connection is not pgx's (database.Open always
// opens pgx's; another driver gets the statements one after the other).
var errNotPgx = errors.New("view: not a pgx connection")

// scanBatch scans the next answer of br with q's scan.
func scanBatch(br pgx.BatchResults, q query) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := q.scan(rows); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
