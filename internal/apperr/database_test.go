package apperr_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"logistics/internal/apperr"
)

// TestFromDatabaseDown: the drivers' errors for a database that does not
// answer are 503 database_unavailable with Retry-After, however wrapped;
// a query the database refused stays what it was.
func TestFromDatabaseDown(t *testing.T) {
	for _, c := range []struct {
		err  error
		code string
	}{
		{&pgconn.PgError{Code: "08006", Message: "connection failure"}, "database_unavailable"},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, "database_unavailable"},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, "database_unavailable"},
		{&pgconn.PgError{Code: "53300", Message: "too many connections"}, "database_unavailable"},
		{fmt.Errorf("ent: %w", pgconn.ErrConnClosed), "database_unavailable"},
		{sqlite3.Error{Code: sqlite3.ErrCantOpen}, "database_unavailable"},
		{fmt.Errorf("query: %w", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrRead}), "database_unavailable"},
		{sqlite3.Error{Code: sqlite3.ErrNotADB}, "database_unavailable"},
		{sqlite3.Error{Code: sqlite3.ErrBusy}, "database_busy"},
		{&pgconn.PgError{Code: "42601", Message: "syntax error"}, "internal"},
		{sqlite3.Error{Code: sqlite3.ErrError}, "internal"},
		{context.DeadlineExceeded, "timeout"},
		{errors.New("something else"), "internal"},
	} {
		e := apperr.From(c.err)
		if e.Code != c.code {
			t.Errorf("%v: code %s, want %s", c.err, e.Code, c.code)
			continue
		}
		if strings.HasPrefix(e.Code, "database_") && (e.Kind.Status() != http.StatusServiceUnavailable || e.Header.Get("Retry-After") == "") {
			t.Errorf("%v: %d, Retry-After %q", c.err, e.Kind.Status(), e.Header.Get("Retry-After"))
		}
	}
}
