package migrations

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// testDialects are SQLite always, PostgreSQL when LOGISTICS_TEST_POSTGRES
// names a server.
func testDialects(t *testing.T) []string {
	if os.Getenv("LOGISTICS_TEST_POSTGRES") != "" {
		return dialects
	}
	t.Log("PostgreSQL skipped: LOGISTICS_TEST_POSTGRES is not set")
	return []string{dialect.SQLite}
}

func devDB(t *testing.T, dia string) *sql.DB {
	t.Helper()
	db, done, err := DevDB(context.Background(), dia, os.Getenv("LOGISTICS_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	return db
}

// TestFilesMatchSchema is CI's check that the migration files and the ent
// schema agree: each dialect's files, replayed on an empty database, are
// the ent schema (and the event log's tables), and atlas.sum holds their
// checksums. On failure it names the command that writes the missing file.
func TestFilesMatchSchema(t *testing.T) {
	for _, dia := range testDialects(t) {
		t.Run(dia, func(t *testing.T) {
			dir, err := Dir(dia)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(context.Background(), dia, devDB(t, dia), dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckFindsDrift: the check is not blind — files missing a table, or
// edited after atlas.sum, fail it with the command to run.
func TestCheckFindsDrift(t *testing.T) {
	ctx := context.Background()
	for _, dia := range testDialects(t) {
		t.Run(dia, func(t *testing.T) {
			dir, err := Dir(dia)
			if err != nil {
				t.Fatal(err)
			}
			files, _ := dir.Files()
			// A file that drops a table the ent schema has.
			extra := &migrate.MemDir{}
			for _, f := range files {
				extra.WriteFile(f.Name(), f.Bytes())
			}
			extra.WriteFile("99990101000000_drop.sql", []byte("DROP TABLE reservations;\n"))
			sum, _ := extra.Checksum()
			migrate.WriteSumFile(extra, sum)
			err = Check(ctx, dia, devDB(t, dia), extra)
			if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), "go run ./internal/migrations/gen") {
				t.Fatalf("a dropped table: %v", err)
			}
			// A file edited after its checksum was written.
			edited := &migrate.MemDir{}
			for _, f := range files {
				edited.WriteFile(f.Name(), f.Bytes())
			}
			b, _ := dir.Open("atlas.sum")
			raw := make([]byte, 1<<16)
			n, _ := b.Read(raw)
			edited.WriteFile("atlas.sum", raw[:n])
			edited.WriteFile(files[0].Name(), append(files[0].Bytes(), "-- edited\n"...))
			if err := Check(ctx, dia, devDB(t, dia), edited); !errors.Is(err, migrate.ErrChecksumMismatch) || !strings.Contains(err.Error(), "-hash") {
				t.Fatalf("an edited file: %v", err)
			}
		})
	}
}

// TestOnDiskFilesAreEmbedded: the binary carries the files of the
// repository (the embed patterns miss none).
func TestOnDiskFilesAreEmbedded(t *testing.T) {
	for _, dia := range dialects {
		sub, _ := Folder(dia)
		disk, err := migrate.NewLocalDir(sub)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := disk.Checksum()
		dir, _ := Dir(dia)
		got, _ := dir.Checksum()
		if want.Sum() != got.Sum() || len(want) == 0 {
			t.Errorf("%s: embedded files %s, on disk %s", dia, got.Sum(), want.Sum())
		}
	}
}

// openDB opens an empty database of dia for Apply: a SQLite file, or a
// new PostgreSQL database.
func openDB(t *testing.T, dia string) *sql.DB {
	t.Helper()
	if dia == dialect.Postgres {
		return devDB(t, dia)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "m.db")+"?_fk=1&_journal_mode=WAL&_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestApplyRecordsAndRefusesNewer: a new database gets every file, each
// recorded; a second apply has nothing to do; a database whose recorded
// version the binary does not know is refused, naming both versions.
func TestApplyRecordsAndRefusesNewer(t *testing.T) {
	ctx := context.Background()
	for _, dia := range testDialects(t) {
		t.Run(dia, func(t *testing.T) {
			db := openDB(t, dia)
			applied, err := Apply(ctx, db, dia)
			if err != nil {
				t.Fatal(err)
			}
			dir, _ := Dir(dia)
			files, _ := dir.Files()
			if len(applied) != len(files) {
				t.Fatalf("applied %v, want the %d files", applied, len(files))
			}
			st, err := ReadStatus(ctx, db, dia)
			if err != nil {
				t.Fatal(err)
			}
			if st.Current() != st.Latest || len(st.Pending) != 0 || st.Unversioned || st.Applied[0].Baseline {
				t.Fatalf("status after apply: %+v", st)
			}
			var last, stamps int64
			if err := db.QueryRowContext(ctx, "SELECT last_value FROM event_counter WHERE id = 1").Scan(&last); err != nil || last != 0 {
				t.Fatalf("counter row: %d %v", last, err)
			}
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM webhook_endpoints_stamp").Scan(&stamps); err != nil || stamps != 1 {
				t.Fatalf("stamp rows: %d %v", stamps, err)
			}
			if again, err := Apply(ctx, db, dia); err != nil || len(again) != 0 {
				t.Fatalf("second apply: %v %v", again, err)
			}
			const future = "99991231235959"
			if _, err := db.ExecContext(ctx, "INSERT INTO "+RevisionsTable+" (version, description, checksum, applied_at) VALUES ('"+future+"', 'later', 'h1:x', 'now')"); err != nil {
				t.Fatal(err)
			}
			_, err = Apply(ctx, db, dia)
			var newer *NewerError
			if !errors.As(err, &newer) || !strings.Contains(err.Error(), future) || !strings.Contains(err.Error(), st.Latest) {
				t.Fatalf("a newer database: %v", err)
			}
		})
	}
}

// previousRelease makes the schema of the last release before versioned
// migrations — the first file's, which is what that release's automatic
// migration made (TestUpgradeFromPreviousRelease holds the first file to a
// database that release built) — without recording it, and that
// release's event-log rows.
func previousRelease(t *testing.T, db *sql.DB, dia string) {
	t.Helper()
	ctx := context.Background()
	dir, err := Dir(dia)
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := files[0].Stmts()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	bigint := "INTEGER"
	if dia == dialect.Postgres {
		bigint = "BIGINT"
	}
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS event_counter (id INTEGER PRIMARY KEY, last_value " + bigint + " NOT NULL)",
		"CREATE TABLE IF NOT EXISTS webhook_endpoints_stamp (id INTEGER PRIMARY KEY, stamp " + bigint + " NOT NULL)",
		"INSERT INTO webhook_endpoints_stamp (id, stamp) VALUES (1, 42)",
		"INSERT INTO event_counter (id, last_value) VALUES (1, 7)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if dia == dialect.Postgres {
		if _, err := db.ExecContext(ctx, "CREATE SEQUENCE IF NOT EXISTS "+PendingSequence); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdoptPreviousRelease: a database of the automatic migration is
// adopted — the first file recorded as its baseline, not run; its rows
// kept — and one whose schema is not the first file's is refused with
// what differs.
func TestAdoptPreviousRelease(t *testing.T) {
	ctx := context.Background()
	for _, dia := range testDialects(t) {
		t.Run(dia, func(t *testing.T) {
			db := openDB(t, dia)
			previousRelease(t, db, dia)
			st, err := ReadStatus(ctx, db, dia)
			if err != nil || !st.Unversioned {
				t.Fatalf("status of an earlier release's database: %+v %v", st, err)
			}
			if _, err := Apply(ctx, db, dia); err != nil {
				t.Fatal(err)
			}
			st, err = ReadStatus(ctx, db, dia)
			if err != nil || !st.Applied[0].Baseline || st.Current() != st.Latest {
				t.Fatalf("status after adoption: %+v %v", st, err)
			}
			var stamp, last int64
			if err := db.QueryRowContext(ctx, "SELECT stamp FROM webhook_endpoints_stamp WHERE id = 1").Scan(&stamp); err != nil || stamp != 42 {
				t.Fatalf("stamp %d %v, want the one kept", stamp, err)
			}
			if err := db.QueryRowContext(ctx, "SELECT last_value FROM event_counter WHERE id = 1").Scan(&last); err != nil || last != 7 {
				t.Fatalf("counter %d %v, want the one kept", last, err)
			}

			other := openDB(t, dia)
			previousRelease(t, other, dia)
			if _, err := other.ExecContext(ctx, "ALTER TABLE hubs ADD COLUMN legacy_code TEXT"); err != nil {
				t.Fatal(err)
			}
			_, err = Apply(ctx, other, dia)
			var adoptErr *AdoptError
			if !errors.As(err, &adoptErr) || !strings.Contains(err.Error(), "legacy_code") {
				t.Fatalf("a database unlike the first file: %v", err)
			}
			if st, err := ReadStatus(ctx, other, dia); err != nil || !st.Unversioned {
				t.Fatalf("the refused database changed: %+v %v", st, err)
			}
		})
	}
}

// TestForeignKeyCheckOnlyAfterWrites: SQLite's PRAGMA foreign_key_check
// reads every row that has a reference (seconds at scale 1, and the pages
// stay in the connection's cache), so a start with nothing to apply skips
// it; an adoption or a migration still runs it and refuses a dangling
// reference. A row left dangling on purpose (foreign keys off) tells
// which: an up-to-date database with one starts, an earlier release's
// database with one is refused.
func TestForeignKeyCheckOnlyAfterWrites(t *testing.T) {
	ctx := context.Background()
	dangle := func(t *testing.T, db *sql.DB) {
		t.Helper()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, q := range []string{
			"PRAGMA foreign_keys = OFF",
			"INSERT INTO api_tokens (id, created_at, updated_at, name, display_prefix, secret_hash, environment, scopes, user_id) " +
				"VALUES ('tok_dangling', '2026-01-01', '2026-01-01', 'n', 'p', 'h', 'sandbox', '[]', 'usr_missing')",
			"PRAGMA foreign_keys = ON",
		} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}

	current := openDB(t, dialect.SQLite)
	if _, err := Apply(ctx, current, dialect.SQLite); err != nil {
		t.Fatal(err)
	}
	dangle(t, current)
	if again, err := Apply(ctx, current, dialect.SQLite); err != nil || len(again) != 0 {
		t.Fatalf("a start with nothing to apply: %v %v (it ran the check)", again, err)
	}

	earlier := openDB(t, dialect.SQLite)
	previousRelease(t, earlier, dialect.SQLite)
	dangle(t, earlier)
	if _, err := Apply(ctx, earlier, dialect.SQLite); err == nil || !strings.Contains(err.Error(), "api_tokens") {
		t.Fatalf("adopting a database with a dangling reference: %v, want it refused", err)
	}
	if st, err := ReadStatus(ctx, earlier, dialect.SQLite); err != nil || !st.Unversioned {
		t.Fatalf("the refused database changed: %+v %v", st, err)
	}
}

// TestDestructiveRefused: the generator's guard names a dropped column
// and a type change, and lets a new nullable column and an index through.
func TestDestructiveRefused(t *testing.T) {
	ctx := context.Background()
	dir, _ := Dir(dialect.SQLite)
	files, _ := dir.Files()
	d := &migrate.MemDir{}
	for _, f := range files {
		d.WriteFile(f.Name(), f.Bytes())
	}
	// The files get a column the ent schema lacks: bringing them to the
	// schema drops it.
	d.WriteFile("99990101000000_extra.sql", []byte("ALTER TABLE `hubs` ADD COLUMN `legacy` text NULL;\n"))
	sum, _ := d.Checksum()
	migrate.WriteSumFile(d, sum)
	_, err := Write(ctx, dialect.SQLite, devDB(t, dialect.SQLite), d, "drop_legacy", false)
	var de *DestructiveError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "drop column hubs.legacy") {
		t.Fatalf("dropping a column: %v", err)
	}
	name, err := Write(ctx, dialect.SQLite, devDB(t, dialect.SQLite), d, "drop_legacy", true)
	if err != nil || name == "" {
		t.Fatalf("with -allow-destructive: %q %v", name, err)
	}
	f, err := d.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	if !strings.HasPrefix(string(b[:n]), DestructiveMarker) {
		t.Fatalf("the destructive file is not marked:\n%s", b[:n])
	}
}

// TestDestructiveFilesHaveDataSteps: every file the generator marked as
// dropping or rewriting data has its Go data step, in every dialect.
func TestDestructiveFilesHaveDataSteps(t *testing.T) {
	for _, dia := range dialects {
		dir, _ := Dir(dia)
		files, _ := dir.Files()
		for _, f := range files {
			if _, ok := dataSteps[f.Desc()]; isDestructive(f) && !ok {
				t.Errorf("%s/%s is marked destructive and has no data step in data.go", dia, f.Name())
			}
		}
	}
}

// TestDestructiveFileNeedsItsDataStep: a file marked destructive is not
// applied without its data step; with one, the step runs before the SQL,
// in the same transaction (it sees the table the file then drops).
func TestDestructiveFileNeedsItsDataStep(t *testing.T) {
	ctx := context.Background()
	dir, _ := Dir(dialect.SQLite)
	files, _ := dir.Files()
	d := &migrate.MemDir{}
	for _, f := range files {
		d.WriteFile(f.Name(), f.Bytes())
	}
	d.WriteFile("99990101000000_drop_reservations.sql", []byte(DestructiveMarker+"\nDROP TABLE `reservations`;\n"))
	sum, _ := d.Checksum()
	migrate.WriteSumFile(d, sum)
	db := openDB(t, dialect.SQLite)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := applySQLite(ctx, conn, d); err == nil || !strings.Contains(err.Error(), "no data step") {
		t.Fatalf("without a data step: %v", err)
	}
	if ok, _ := tableExists(ctx, conn, dialect.SQLite, "hubs"); ok {
		t.Fatal("the refused migration left tables behind")
	}
	saw := -1
	dataSteps["drop_reservations"] = dataStep{Before: func(ctx context.Context, q querier, _ string) error {
		return q.QueryRowContext(ctx, "SELECT count(*) FROM reservations").Scan(&saw)
	}}
	defer delete(dataSteps, "drop_reservations")
	names, err := applySQLite(ctx, conn, d)
	if err != nil || len(names) != len(files)+1 || saw != 0 {
		t.Fatalf("with its data step: %v %v (step saw %d rows)", names, err, saw)
	}
	if ok, _ := tableExists(ctx, conn, dialect.SQLite, "reservations"); ok {
		t.Fatal("the file did not run after its step")
	}
}

// TestSearchIndexesAnalyzed: every file that creates a search index is
// followed by an ANALYZE of its table. PostgreSQL has statistics on an
// index's expression only after ANALYZE; without them, on an existing
// database, the planner walked the primary key for a search matching
// nothing (every row read) instead of the index, until autovacuum got to
// the table.
func TestSearchIndexesAnalyzed(t *testing.T) {
	dir, err := Dir(dialect.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	unanalyzed := map[string]string{} // table → the file that created its index
	for _, f := range files {
		stmts, err := f.Stmts()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if tables, ok := strings.CutPrefix(strings.TrimSpace(s), "ANALYZE "); ok {
				for _, tb := range strings.Split(strings.TrimSuffix(tables, ";"), ",") {
					delete(unanalyzed, strings.Trim(strings.TrimSpace(tb), `"`))
				}
				continue
			}
			for table, cols := range SearchColumns {
				for _, c := range cols {
					if strings.Contains(s, `CREATE INDEX "`+SearchIndex(table, c)+`"`) {
						unanalyzed[table] = f.Name()
						created++
					}
				}
			}
		}
	}
	if created == 0 {
		t.Fatal("no file creates a search index")
	}
	for table, file := range unanalyzed {
		t.Errorf("%s creates a search index on %s, and no later statement analyzes it: add ANALYZE %s in a file after it", file, table, table)
	}
}
