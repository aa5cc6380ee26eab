package apperr

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// RetryAfterUnavailable is the Retry-After, in seconds, of an answer given
// while the database does not answer: a PostgreSQL restart or fail-over
// takes seconds, and the clients of a busy service should not all come
// back at once.
const RetryAfterUnavailable = "2"

// DatabaseUnavailable is the 503 of a request the database could not serve
// because it does not answer (refused or dropped connections, a server
// shutting down, a SQLite file that cannot be opened or read). The
// operator's fault, not the client's nor a bug: the client retries later.
func DatabaseUnavailable(cause error) *Error {
	e := &Error{Kind: KindUnavailable, Code: "database_unavailable",
		Message: "the database is not answering; retry shortly", cause: cause}
	return e.WithHeader("Retry-After", RetryAfterUnavailable)
}

// databaseBusy is the 503 of a SQLite writer that waited out SQLite's own
// busy timeout (another process held the lock): the write gate's answer
// for the same wait in this process is the same (internal/database).
func databaseBusy(cause error) *Error {
	e := &Error{Kind: KindUnavailable, Code: "database_busy",
		Message: "the database is busy with other writes; retry shortly", cause: cause}
	return e.WithHeader("Retry-After", "1")
}

// IsDatabaseUnavailable reports whether err says that the database does
// not answer: From classifies it as database_unavailable.
func IsDatabaseUnavailable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Code == "database_unavailable"
	}
	return databaseDown(err)
}

// databaseDown recognises the drivers' errors for a database that is not
// there, rather than a query it refused:
//   - pgx: a connection that could not be made (pgconn.ConnectError: refused,
//     unreachable, the server starting up or shutting down), one closed
//     under a query (conn closed, an unexpected EOF, a reset), and the
//     server's own errors of class 08 (connection exception) and 57P01–
//     57P03 (shut down by the administrator, crashed, cannot connect now)
//     and 53300 (too many connections);
//   - database/sql: a connection it found bad or already closed;
//   - SQLite: a file that cannot be opened (SQLITE_CANTOPEN: removed,
//     moved, its directory gone), read or written (SQLITE_IOERR,
//     SQLITE_FULL, SQLITE_READONLY), or that is no longer a database
//     (SQLITE_NOTADB, SQLITE_CORRUPT: replaced under the service).
func databaseDown(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"),
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03",
			pe.Code == "53300":
			return true
		}
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrCantOpen, sqlite3.ErrIoErr, sqlite3.ErrFull, sqlite3.ErrReadonly,
			sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return true
		}
		return false
	}
	// A connection lost under a query: pgx returns the network's error or
	// a bare unexpected EOF (seen with PostgreSQL stopped under an open
	// pool). Request bodies cut short are answered before they get here
	// (REST, GraphQL and the CSV import classify their read errors).
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED:
// its busy timeout passed with the lock still held by another process.
func sqliteBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
