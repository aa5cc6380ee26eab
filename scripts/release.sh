#!/usr/bin/env bash
# Builds a release binary of the Logistics Service with its version, commit
# and build date stamped in (see `logistics version` and GET /v1/status).
#
#   scripts/release.sh                      # dist/logistics, version from git describe
#   VERSION=v1.4.0 scripts/release.sh       # an explicit version
#   OUT=/tmp/logistics scripts/release.sh   # another output path
#   STATIC=0 scripts/release.sh             # link against the system's libc instead
#
# go-sqlite3 needs cgo, so the binary is linked by gcc; by default statically
# (glibc's libc.a, the sqlite_omit_load_extension, netgo and osusergo tags
# keep it from needing dlopen, NSS or getaddrinfo at run time), which is what
# the container image copies onto an empty base (the time-zone database is
# embedded: tzdata.go). SOURCE_DATE_EPOCH, when set,
# is the build date (reproducible builds); otherwise the current UTC time.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-dist/logistics}"
static="${STATIC:-1}"
version="${VERSION:-}"
if [ -z "$version" ]; then
	version=$(git describe --tags --always --dirty 2>/dev/null || true)
fi
version="${version:-dev}"
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit-dirty"
fi
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
	date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi
case "$version$commit" in
*[!A-Za-z0-9._+~-]*)
	echo "release: version $version or commit $commit has characters that do not belong in a version" >&2
	exit 2
	;;
esac

pkg=logistics/internal/app
ldflags="-s -w -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.date=$date"
tags="sqlite_omit_load_extension"
if [ "$static" = 1 ]; then
	tags="$tags netgo osusergo"
	ldflags="$ldflags -linkmode external -extldflags -static"
fi

mkdir -p "$(dirname "$out")"
CGO_ENABLED=1 go build -trimpath -buildvcs=false -tags "$tags" -ldflags "$ldflags" -o "$out" .

# The binary must run and report what was stamped.
got=$("$out" version --json)
case "$got" in
*"\"version\":\"$version\""*"\"commit\":\"$commit\""*"\"date\":\"$date\""*) ;;
*)
	echo "release: $out version --json printed $got, not version $version commit $commit date $date" >&2
	exit 1
	;;
esac
if [ "$static" = 1 ] && command -v ldd >/dev/null 2>&1 && ldd "$out" >/dev/null 2>&1; then
	echo "release: $out is dynamically linked:" >&2
	ldd "$out" >&2
	exit 1
fi
echo "built $out: $got"
