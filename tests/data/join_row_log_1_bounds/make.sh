#!/usr/bin/env bash
# tests/data/join_row_log_1_bounds/make.sh WEIR - writes the fixtures of
# test_restore_join_row_log_1_bounds: a checkpoint of job.sql (bounded/)
# and one of unbounded.sql (unbounded/), each on the memory backend, taken
# by WEIR, a weir whose row logs are of the first element format ("row
# log: 1 ..."), made as tests/data/canonical_rows/make.sh makes its own.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
for name in bounded unbounded; do
    T=$(mktemp -d /tmp/weir-row-log-1-bounds-XXXXXX)
    sql=$HERE/job.sql
    [ $name = unbounded ] && sql=$HERE/unbounded.sql
    cp "$sql" "$T/job.sql"
    FIXTURE_DIR=$T "$HERE/../canonical_rows/make.sh" "$1" memory
    rm -rf "${HERE:?}/$name"
    mv "$T/memory" "$HERE/$name"
    rm -rf "$T"
done
