#!/usr/bin/env bash
# Runs the server under strace, counting its fsync and fdatasync calls, for
# the harness's --server-bin, to compare the durability settings FULL and
# NORMAL (bench/README.md):
#
#   go build -o /tmp/logistics . && mkdir -p /tmp/fsyncs
#   FSYNC_SERVER_BIN=/tmp/logistics FSYNC_OUT=/tmp/fsyncs go run ./bench --server-bin bench/fsync-count.sh \
#     --workloads W4,W5 --interfaces rest,graphql --warmup 0s --duration 5s …
#
# Each process the harness starts leaves $FSYNC_OUT/<pid>.txt, strace's
# summary, in the order the rows ran. A SIGTERM is passed to the server, and
# strace writes its summary once the server has stopped.
set -u
strace -f --seccomp-bpf -c -e trace=fsync,fdatasync -o "${FSYNC_OUT:?}/$$.txt" "${FSYNC_SERVER_BIN:?}" "$@" &
sp=$!
trap 'kill -TERM $(pgrep -P $sp) 2>/dev/null' TERM INT
wait $sp
wait $sp
