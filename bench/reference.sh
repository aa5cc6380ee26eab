#!/bin/sh
# Regenerates the README's reference figures (Performance) for the whole
# suite — W1, W2, W3, W3s, W4, W5, W6 through REST, GraphQL and the floor —
# at the current commit, on SQLite and on PostgreSQL, each on a freshly
# seeded scale-1 dataset, 3 interleaved rounds. Every results.md names the
# commit and the load average (/proc/loadavg) at the start and the end.
#
#   bench/reference.sh                     # both databases
#   DATABASES=sqlite bench/reference.sh    # one
#   ROUNDS=5 DURATION=10s bench/reference.sh
#   SCALE=0.02 ROUNDS=1 DURATION=1s WARMUP=0s bench/reference.sh   # check the script, no figures
#
# Needs wrk, a clean work tree (the figures belong to one commit) and, for
# PostgreSQL, createdb/dropdb rights on $PGURL (default
# postgres://postgres@127.0.0.1:5432). Run it on an otherwise idle machine:
# the figures are ratios to the floor, but a busy machine widens every range.
set -eu
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain)" ]; then
	echo "reference.sh: the work tree has changes; commit them first" >&2
	exit 1
fi
commit=$(git rev-parse --short HEAD)
out=${OUT:-bench/out/reference-$commit}
rounds=${ROUNDS:-3}
duration=${DURATION:-10s}
warmup=${WARMUP:-3s}
scale=${SCALE:-1}
dbs=${DATABASES:-sqlite postgres}
pgurl=${PGURL:-postgres://postgres@127.0.0.1:5432}
mkdir -p "$out"
bin="$out/logistics"
go build -o "$bin" .
echo "reference.sh: commit $commit, load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/loadavg.txt"
for db in $dbs; do
	case $db in
	sqlite)
		dir=$(mktemp -d)
		prod="$dir/production.db" sandbox="$dir/sandbox.db"
		;;
	postgres)
		name="lbench_ref_$$"
		createdb --maintenance-db="$pgurl/postgres" "$name"
		createdb --maintenance-db="$pgurl/postgres" "${name}_sandbox"
		prod="$pgurl/$name?sslmode=disable" sandbox="$pgurl/${name}_sandbox?sslmode=disable"
		;;
	*)
		echo "reference.sh: unknown database $db" >&2
		exit 1
		;;
	esac
	"$bin" seed --env sandbox --scale "$scale" --db "$prod" --sandbox-db "$sandbox"
	go run ./bench --server-bin "$bin" --db "$prod" --sandbox-db "$sandbox" \
		--rounds "$rounds" --duration "$duration" --warmup "$warmup" --out "$out/$db"
	if [ "$db" = postgres ]; then
		dropdb --maintenance-db="$pgurl/postgres" "$name"
		dropdb --maintenance-db="$pgurl/postgres" "${name}_sandbox"
	else
		rm -rf "$dir"
	fi
done
echo "reference.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/loadavg.txt"
echo "reference.sh: results in $out/*/results.md"
