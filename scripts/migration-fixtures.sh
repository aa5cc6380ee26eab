#!/usr/bin/env bash
# Rebuilds the upgrade fixtures in internal/migrations/testdata/: a sandbox
# database made by the last release before versioned migrations (commit
# 4943353, ent's automatic migration) and filled with its demo data, for each
# dialect — a SQLite file, and a plain pg_dump of a PostgreSQL database — with
# the JSON of every row as that release's REST API answered it
# (internal/migrations/upgradetest). TestUpgradeFromPreviousRelease opens
# them with the current code and reads every row back.
#
#   scripts/migration-fixtures.sh            # PostgreSQL from PG below
#   PG='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' SCALE=0.02 scripts/migration-fixtures.sh
set -euo pipefail
REV=${REV:-4943353}
SCALE=${SCALE:-0.002}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
PORT=${PORT:-18431}
root=$(git rev-parse --show-toplevel)
out=$root/internal/migrations/testdata
work=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true
	[ -n "${pgdb:-}" ] && psql "$PG" -qc "DROP DATABASE IF EXISTS $pgdb WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
# OLD_BIN: a binary of REV already built (skips the build).
if [ -n "${OLD_BIN:-}" ]; then
	cp "$OLD_BIN" "$work/old"
else
	git -C "$root" worktree add --detach "$work/src" "$REV" >/dev/null
	(cd "$work/src" && go build -o "$work/old" .)
fi
mkdir -p "$out"

# build DIALECT SANDBOX_DSN: seed the sandbox with the old release, serve it,
# and capture every row through its REST API.
build() {
	local name=$1 sandbox=$2
	local flags=(--db "$work/$name-production.db" --sandbox-db "$sandbox" --data-dir "$work/data-$name"
		--base-url "http://127.0.0.1:$PORT" --sandbox-url "http://127.0.0.1:$PORT/sandbox")
	"$work/old" seed --env sandbox --scale "$SCALE" "${flags[@]}"
	token=$("$work/old" tokens create --name fixture --env sandbox --scopes all "${flags[@]}")
	"$work/old" serve --addr "127.0.0.1:$PORT" --no-demo-data --rate-limit 0 "${flags[@]}" >"$work/$name.log" 2>&1 &
	server=$!
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
	(cd "$root" && go run ./internal/migrations/upgradetest/capture -url "http://127.0.0.1:$PORT/sandbox" -token "$token") >"$out/$name-golden.json"
	kill "$server"; wait "$server" || true; server=
}

# SQLite: the file, checkpointed and compacted, in rollback-journal mode
# (one file to commit; the test's copy is opened in WAL mode as usual).
build sqlite "$work/sandbox.db"
python3 - "$work/sandbox.db" "$out/sqlite-sandbox.db" <<'PY'
import sqlite3, sys, shutil
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE")
c.execute("VACUUM")
c.close()
shutil.copyfile(sys.argv[1], sys.argv[2])
PY

# PostgreSQL: a new database, dumped without owners or privileges.
pgdb=fixture_$(date +%s)
psql "$PG" -qc "CREATE DATABASE $pgdb" >/dev/null
pgurl=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$PG" "$pgdb")
build postgres "$pgurl"
pg_dump --no-owner --no-privileges --format=plain "$pgurl" | grep -v '^SET transaction_timeout' >"$out/postgres-sandbox.sql"
ls -l "$out"
