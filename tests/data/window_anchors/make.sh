#!/usr/bin/env bash
# tests/data/window_anchors/make.sh WEIR - writes the fixtures of
# test_restore_window_anchors: the final checkpoint of job.sql at
# parallelism 2 taken by WEIR, a weir whose window operator keeps its
# watermark in keyed state (value state "watermark" under one anchor key
# in every key group it owns), on the memory backend (memory/ck) and on
# RocksDB (rocksdb/ck). The input is in/a.csv: 200 rows, keys k0..k4,
# 100 ms apart.
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
for backend in memory rocksdb; do
    T=$(mktemp -d /tmp/weir-window-anchors-XXXXXX)
    cp "$HERE/job.sql" "$T/"
    mkdir "$T/in"
    "$HERE/input.sh" "$T/in/a.csv"
    (cd "$T" && "$WEIR" run job.sql -D state.checkpoints.dir=ck -D parallelism.default=2 \
        -D state.backend.type=$backend -D weir.state.dir=state -D rest.enabled=false > /dev/null 2> log)
    rm -f "$T"/ck/.weir.lock
    rm -rf "${HERE:?}/$backend"
    mkdir -p "$HERE/$backend"
    cp -r "$T/ck" "$HERE/$backend/"
    rm -rf "$T"
done
