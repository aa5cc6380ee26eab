package view

import (
	"context"
	stdsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/mattn/go-sqlite3"
)

// On SQLite a read's statements are run on go-sqlite3's connection itself
// (database/sql's Conn.Raw), outside database/sql's rows: a row's values
// are read once by the driver and assigned here by a type switch over the
// few destinations the scans use, instead of database/sql's Rows.Next and
// Scan (a lock per call, convertAssign per value). On W3 that was a tenth
// of the lines statement's time. Only outside
// a transaction, through ent's own driver, as the PostgreSQL pipeline.

// errNotSQLite: the connection is not go-sqlite3's.
var errNotSQLite = errors.New("view: not a go-sqlite3 connection")

// rawSQLite runs qs one after the other on one go-sqlite3 connection of db.
// It lives here, not with the rest of what only SQLite needs (internal/sqlite),
// because it runs this package's statements and scans into its rows: from
// there it would import view while view calls it, a cycle, and an adapter per
// statement would cost an allocation per read.
func rawSQLite(ctx context.Context, db *stdsql.DB, qs []query) error {
	return onDriverConn(ctx, db, func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return errNotSQLite
		}
		var (
			from []any // the argument list args was converted from
			args []driver.NamedValue
		)
		for _, q := range qs {
			// A read's statements share one argument list (the order's id,
			// the page's ids): it is converted once.
			if len(q.args) == 0 || len(from) != len(q.args) || &from[0] != &q.args[0] {
				var err error
				if args, err = namedValues(q.args); err != nil {
					return err
				}
				from = q.args
			}
			if err := rawQuery(ctx, c, q.text, args, q.scan); err != nil {
				return err
			}
		}
		return nil
	})
}

// namedValues converts args as database/sql converts a statement's
// arguments for a driver (a driver.Valuer gives its value).
func namedValues(args []any) ([]driver.NamedValue, error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, fmt.Errorf("view: argument %d: %w", i+1, err)
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return named, nil
}

// rawQuery runs text with args on c and scans its rows with scan.
func rawQuery(ctx context.Context, c *sqlite3.SQLiteConn, text string, args []driver.NamedValue, scan func(rowScanner) error) error {
	rows, err := c.QueryContext(ctx, text, args)
	if err != nil {
		return err
	}
	r := &driverRows{rows: rows, vals: make([]driver.Value, len(rows.Columns()))}
	err = scan(r)
	if err == nil {
		err = r.err
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// driverRows is a rowScanner over a driver's rows.
type driverRows struct {
	rows driver.Rows
	vals []driver.Value
	err  error
}

func (r *driverRows) Next() bool {
	if r.err != nil {
		return false
	}
	if err := r.rows.Next(r.vals); err != nil {
		if err != io.EOF {
			r.err = err
		}
		return false
	}
	return true
}

func (r *driverRows) Err() error { return r.err }

// Scan assigns the row's values to dest: the destinations the scans of
// this package use, each given what database/sql would give it (a
// sql.Scanner the driver's value).
func (r *driverRows) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("view: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		v := r.vals[i]
		var ok bool
		switch d := d.(type) {
		case *string:
			*d, ok = v.(string)
		case *int64:
			*d, ok = v.(int64)
		case *int:
			var n int64
			n, ok = v.(int64)
			*d = int(n)
		case stdsql.Scanner:
			if err := d.Scan(v); err != nil {
				return fmt.Errorf("view: column %d: %w", i, err)
			}
			ok = true
		}
		if !ok {
			return fmt.Errorf("view: column %d: cannot scan %T into %T", i, v, d)
		}
	}
	return nil
}
