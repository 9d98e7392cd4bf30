#!/usr/bin/env bash
# tests/data/canonical_rows/make.sh WEIR [FIXTURE...] - writes the fixtures
# (all, or those named) of test_restore_canonical_rows: checkpoints of
# job.sql taken by WEIR, a weir that keeps join and Top-N rows in the
# canonical encoding (before the compact one, "row format: compact-1"), on
# the memory backend (memory), RocksDB (rocksdb) and RocksDB with
# incremental checkpoints (rocksdb-incremental): each job is killed once
# its first checkpoint is complete, and the fixture is that checkpoint
# (ckpt/) and the output folders as the kill left them; and a savepoint
# (savepoint: the job stopped with one, sp/ and the output folders).
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# FIXTURE_DIR: another fixture folder (its job.sql) made the same way.
HERE=${FIXTURE_DIR:-$(cd "$(dirname "$0")" && pwd)}
# WEIR_FIXTURE_PARALLELISM: the jobs' parallelism (the default: the job's own).
PAR=()
[ -n "${WEIR_FIXTURE_PARALLELISM:-}" ] && PAR=(-D parallelism.default="$WEIR_FIXTURE_PARALLELISM")
make_one() { # $1: fixture name, then -D options
    local name=$1 T
    shift
    T=$(mktemp -d /tmp/weir-canonical-rows-XXXXXX)
    cp "$HERE/job.sql" "$T/"
    cd "$T"
    "$WEIR" run job.sql ${PAR[@]+"${PAR[@]}"} "$@" > /dev/null 2> log &
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
# A savepoint (stop with savepoint), the documented upgrade path: sp/ and
# the output folders as the stopped job left them.
make_savepoint() {
    local T
    T=$(mktemp -d /tmp/weir-canonical-rows-XXXXXX)
    cp "$HERE/job.sql" "$T/"
    cd "$T"
    "$WEIR" run job.sql ${PAR[@]+"${PAR[@]}"} -D state.savepoints.dir=sp > /dev/null 2> log &
    local pid=$!
    for ((i = 0; i < 1000; i++)); do compgen -G "ckpt/chk-*/_metadata" > /dev/null && break; sleep 0.01; done
    "$WEIR" savepoint "$pid" --stop > /dev/null
    wait "$pid"
    compgen -G "sp/savepoint-*/_metadata" > /dev/null || { cat log; exit 1; }
    rm -f sp/.weir.lock out_*/.weir.lock
    cd "$HERE"
    rm -rf "${HERE:?}/savepoint"
    mkdir -p "$HERE/savepoint"
    cp -r "$T/sp" "$HERE/savepoint/"
    for d in "$T"/out_*; do [ -d "$d" ] && cp -r "$d" "$HERE/savepoint/"; done
    rm -rf "$T"
}
want() { [ $# -eq 0 ] || [[ " $* " == *" $name "* ]]; }
set -- "${@:2}"
name=savepoint; want "$@" && make_savepoint
name=memory; want "$@" && make_one memory
name=rocksdb; want "$@" && make_one rocksdb -D state.backend.type=rocksdb -D weir.state.dir=state
name=rocksdb-incremental; want "$@" &&
    make_one rocksdb-incremental -D state.backend.type=rocksdb -D weir.state.dir=state -D state.backend.incremental=true
du -sh "$HERE"/*/
