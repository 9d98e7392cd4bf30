#!/usr/bin/env bash
# tests/data/canonical_rows/make.sh WEIR - writes the fixtures of
# test_restore_canonical_rows: checkpoints of job.sql taken by WEIR, a weir
# that keeps join and Top-N rows in the canonical encoding (before the
# compact one, "row format: compact-1"), on the memory backend, RocksDB and
# RocksDB with incremental checkpoints. Each job is killed once its first
# checkpoint is complete; the fixture is that checkpoint (ckpt/) and the
# output folders as the kill left them.
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
make_one() { # $1: fixture name, then -D options
    local name=$1 T
    shift
    T=$(mktemp -d /tmp/weir-canonical-rows-XXXXXX)
    cp "$HERE/job.sql" "$T/"
    cd "$T"
    "$WEIR" run job.sql "$@" > /dev/null 2> log &
    local pid=$!
    for ((i = 0; i < 1000; i++)); do compgen -G "ckpt/chk-*/_metadata" > /dev/null && break; sleep 0.01; done
    kill -9 "$pid" || { echo "$name: the job ended before it was killed"; exit 1; }
    wait "$pid" || true
    compgen -G "ckpt/chk-*/_metadata" > /dev/null || { cat log; exit 1; }
    # the checkpoints begun after the last complete one
    last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
    for d in ckpt/chk-*; do [ "${d#ckpt/chk-}" -gt "$last" ] && rm -rf "$d"; done
    rm -f ckpt/.weir.lock out_*/.weir.lock
    cd "$HERE"
    rm -rf "${HERE:?}/$name"
    mkdir -p "$HERE/$name"
    cp -r "$T/ckpt" "$HERE/$name/"
    for d in "$T"/out_*; do [ -d "$d" ] && cp -r "$d" "$HERE/$name/"; done
    rm -rf "$T"
}
make_one memory
make_one rocksdb -D state.backend.type=rocksdb -D weir.state.dir=state
make_one rocksdb-incremental -D state.backend.type=rocksdb -D weir.state.dir=state -D state.backend.incremental=true
du -sh "$HERE"/*/
