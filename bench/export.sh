#!/bin/sh
# Measures the CSV export of stock items: rows per second
# and the server's peak RSS, for all items of the scale-1 data set and for
# about a tenth of them (5 hubs' stock), each in a fresh server process,
# beside the floor: the sqlite3 CLI (-csv) and PostgreSQL's COPY … TO STDOUT
# WITH CSV on the same rows (items joined to their part's SKU and hub's code).
# Prints a Markdown table with the load average before and after.
#
#   bench/export.sh                                  # seeds SQLite and PostgreSQL, 3 runs each
#   DATABASES=sqlite RUNS=1 bench/export.sh
#   SQLITE_DIR=/tmp/lb bench/export.sh               # reuse a seeded data dir (seed --data-dir)
#   PG_DB=lb_sbx DATABASES=postgres bench/export.sh  # reuse a seeded PostgreSQL sandbox database
#   SCALE=0.02 RUNS=1 bench/export.sh                # check the script, no figures
#
# Needs curl, sqlite3, psql and (for PostgreSQL) createdb/dropdb rights on
# $PGURL (default postgres://postgres@127.0.0.1:5432).
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
scale=${SCALE:-1}
dbs=${DATABASES:-sqlite postgres}
pgurl=${PGURL:-postgres://postgres@127.0.0.1:5432}
port=${PORT:-18473}
work=$(mktemp -d)
bin="$work/logistics"
trap 'kill "$(cat "$work/pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$bin" .
echo "commit $(git rev-parse --short HEAD), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The floor's query: what the export writes, minus the JSON rendering.
floor_sql="SELECT i.id, i.part_id, p.sku, i.hub_id, h.code, i.quantity, i.reserved_quantity, i.quantity - i.reserved_quantity,
  i.lot, i.serial, i.status, i.expires_at, i.revision, i.created_at, i.updated_at
  FROM items i JOIN parts p ON p.id = i.part_id JOIN hubs h ON h.id = i.hub_id ORDER BY i.id"
subset="hub[]=AMS1&hub[]=RTM2&hub[]=ANR1&hub[]=BRU1&hub[]=HAM1"

# export NAME QUERY: one run in a fresh server; prints a table row.
export_run() {
	LOGISTICS_ADMIN_PASSWORD=unused-bench-password "$bin" serve --addr "127.0.0.1:$port" --db "$prod" --sandbox-db "$sandbox" \
		--data-dir "$work" --rate-limit 0 --no-demo-data --webhook-workers 0 >"$work/server.log" 2>&1 &
	echo $! >"$work/pid"
	pid=$(cat "$work/pid")
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
		sleep 0.1
	done
	base="http://127.0.0.1:$port/sandbox/v1/items"
	curl -sf -o /dev/null -H "Authorization: Bearer $key" "$base?limit=1" # warm: the key, the statement cache
	before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	out=$(curl -sSf -o "$work/export.csv" -w '%{time_total} %{size_download}' -H "Authorization: Bearer $key" -H 'Accept: text/csv' "$base?$2")
	peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rows=$(($(wc -l <"$work/export.csv") - 1))
	set -- "$1" $out
	awk -v db="$db" -v what="$1" -v rows="$rows" -v s="$2" -v bytes="$3" -v before="$before" -v peak="$peak" 'BEGIN {
		printf "| %s | server, %s | %d | %.2f s | %.0f | %.1f MB | %.0f MiB (idle %.0f) |\n", db, what, rows, s, rows / s, bytes / 1e6, peak / 1024, before / 1024 }'
}

# floor NAME COMMAND...: times a command writing CSV to $work/floor.csv.
floor_run() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/floor.csv"
	rows=$(($(wc -l <"$work/floor.csv") - 1))
	bytes=$(wc -c <"$work/floor.csv")
	set -- $(cat "$work/time")
	awk -v db="$db" -v what="$name" -v rows="$rows" -v s="$1" -v bytes="$bytes" -v rss="$2" 'BEGIN {
		if (s < 0.01) s = 0.01
		printf "| %s | %s | %d | %.2f s | %.0f | %.1f MB | %.0f MiB (client) |\n", db, what, rows, s, rows / s, bytes / 1e6, rss / 1024 }'
}

echo
echo "| database | export | rows | time | rows/s | size | peak RSS |"
echo "|---|---|---:|---:|---:|---:|---:|"
for db in $dbs; do
	case $db in
	sqlite)
		dir=${SQLITE_DIR:-}
		if [ -z "$dir" ]; then
			dir="$work/sqlite"
			"$bin" seed --env sandbox --scale "$scale" --data-dir "$dir" >"$work/seed.log" 2>&1
		fi
		prod="$dir/production.db" sandbox="$dir/sandbox.db"
		;;
	postgres)
		name=${PG_DB:-}
		if [ -z "$name" ]; then
			name="lbench_export_$$"
			createdb --maintenance-db="$pgurl/postgres" "${name}_prod"
			createdb --maintenance-db="$pgurl/postgres" "$name"
			"$bin" seed --env sandbox --scale "$scale" --db "$pgurl/${name}_prod?sslmode=disable" \
				--sandbox-db "$pgurl/$name?sslmode=disable" >"$work/seed.log" 2>&1
			trap 'kill "$(cat "$work/pid" 2>/dev/null)" 2>/dev/null || true; dropdb --maintenance-db="$pgurl/postgres" "${name}_prod"; dropdb --maintenance-db="$pgurl/postgres" "$name"; rm -rf "$work"' EXIT
			prod="$pgurl/${name}_prod?sslmode=disable"
		else
			prod="$pgurl/${PG_PROD_DB:-${name}_prod}?sslmode=disable"
		fi
		sandbox="$pgurl/$name?sslmode=disable"
		;;
	esac
	key=$("$bin" tokens create --name "export bench $$" --env sandbox --scopes read --db "$prod" --sandbox-db "$sandbox" 2>/dev/null)
	for _ in $(seq "$runs"); do
		export_run "all items" ""
		export_run "5 hubs' items" "$subset"
		case $db in
		sqlite) floor_run "floor: sqlite3 -csv" sqlite3 -csv -header "$sandbox" "$floor_sql" ;;
		postgres) floor_run "floor: COPY … TO STDOUT" psql -X -q "$sandbox" -c "COPY ($floor_sql) TO STDOUT WITH CSV HEADER" ;;
		esac
	done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
