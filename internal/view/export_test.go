package view

import (
	"context"
	stdsql "database/sql"

	"entgo.io/ent/dialect"
)

// Pipelined is the database whose reads drv pipelines (PostgreSQL), for tests.
func Pipelined(drv dialect.Driver) *stdsql.DB {
	if drv.Dialect() != dialect.Postgres {
		return nil
	}
	return own(context.Background(), drv)
}

// SQLiteOwn is the database whose reads drv runs on go-sqlite3's
// connection (SQLite), for tests.
func SQLiteOwn(drv dialect.Driver) *stdsql.DB {
	if drv.Dialect() != dialect.SQLite {
		return nil
	}
	return own(context.Background(), drv)
}

// Reset takes back what m lent without giving m to the pool (Release's
// first half), so a test can read into the same memory again.
func (m *LineMemory) Reset() { m.reset() }

// PipelinesPage says whether PageWith pipelines r's statements on
// PostgreSQL, for tests.
func PipelinesPage(r OrderRead) bool { return pipelinesPage(r) }
