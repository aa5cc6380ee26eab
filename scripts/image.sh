#!/usr/bin/env bash
# Builds the container image of the Logistics Service from Containerfile:
# a release binary (scripts/release.sh) on an empty base, with no registry
# needed. Uses podman, else buildah; both with the vfs storage driver and
# chroot isolation, which work inside a container without user namespaces.
#
#   scripts/image.sh                 # logistics:<version> (VERSION as release.sh)
#   TAG=logistics:test scripts/image.sh
#   BIN=dist/logistics scripts/image.sh   # reuse a binary release.sh built
set -euo pipefail
cd "$(dirname "$0")/.."

ctx=$(mktemp -d "${TMPDIR:-/tmp}/logistics-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/data" "$ctx/tmp"
if [ -n "${BIN:-}" ]; then
	cp "$BIN" "$ctx/rootfs/logistics"
else
	OUT="$ctx/rootfs/logistics" scripts/release.sh
fi
version=$("$ctx/rootfs/logistics" version --json | sed -n 's/.*"version":"\([^"]*\)".*/\1/p')
tag="${TAG:-logistics:$version}"
case "$tag" in *+*) tag="${tag//+/_}" ;; esac # + is not allowed in a tag
certs=/etc/ssl/certs/ca-certificates.crt
if [ -f "$certs" ]; then
	cp "$certs" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
else
	echo "image: $certs not found (apt-get install ca-certificates): webhooks to https:// endpoints will fail TLS verification" >&2
fi
printf 'root:x:0:0:root:/:/sbin/nologin\nlogistics:x:65532:65532:logistics:/data:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nlogistics:x:65532:\n' >"$ctx/rootfs/etc/group"
chmod 0755 "$ctx/rootfs/logistics"
chmod 0700 "$ctx/data" "$ctx/tmp"

labels=(--label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.title=logistics")
if command -v podman >/dev/null 2>&1; then
	podman ${PODMAN_FLAGS:---storage-driver=vfs} build --isolation=chroot --format docker "${labels[@]}" -f Containerfile -t "$tag" "$ctx"
elif command -v buildah >/dev/null 2>&1; then
	buildah ${PODMAN_FLAGS:---storage-driver=vfs} bud --isolation=chroot --format docker "${labels[@]}" -f Containerfile -t "$tag" "$ctx"
else
	echo "image: neither podman nor buildah is installed (apt-get install podman)" >&2
	exit 1
fi
echo "built image $tag"
