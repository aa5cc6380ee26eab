package migrations

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"

	"entgo.io/ent/dialect"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "github.com/mattn/go-sqlite3"    // registers the "sqlite3" driver
)

// DevDB opens an empty database of dia to replay migration files on:
// SQLite in memory, or a new database on the PostgreSQL server server
// (any database's URL on it), dropped by done.
func DevDB(ctx context.Context, dia, server string) (db *sql.DB, done func(), err error) {
	switch dia {
	case dialect.SQLite:
		var b [8]byte
		rand.Read(b[:]) //nolint:errcheck // never fails
		db, err := sql.Open("sqlite3", "file:dev"+hex.EncodeToString(b[:])+"?mode=memory&cache=shared&_fk=1")
		if err != nil {
			return nil, nil, err
		}
		// One connection: an in-memory database lives as long as one is open.
		db.SetMaxOpenConns(1)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	case dialect.Postgres:
		return postgresDev(ctx, server)
	}
	return nil, nil, fmt.Errorf("migrations: no dev database for dialect %q", dia)
}

func postgresDev(ctx context.Context, server string) (*sql.DB, func(), error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, nil, fmt.Errorf("migrations: dev server URL: %w", err)
	}
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return nil, nil, err
	}
	var b [6]byte
	rand.Read(b[:]) //nolint:errcheck // never fails
	name := "logistics_migrate_dev_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return nil, nil, fmt.Errorf("migrations: create the dev database on %s: %w", u.Redacted(), err)
	}
	drop := func() {
		admin.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck
		admin.Close()
	}
	u.Path = "/" + name
	q := u.Query()
	// Unqualified names in the files: they run in whatever schema the
	// server's search_path gives, public by default.
	q.Set("search_path", "public")
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		drop()
		return nil, nil, err
	}
	return db, func() { db.Close(); drop() }, nil
}
