#!/usr/bin/env bash
# tests/data/join_row_log_1/make.sh WEIR [FIXTURE...] - writes the fixtures
# (all, or those named) of test_restore_join_row_log_1: checkpoints of
# job.sql at parallelism 2 taken by WEIR, a weir whose row logs are of the
# first element format ("row log: 1 ...": every element the whole row,
# after its time as an i64 on a bounded side), made as
# tests/data/canonical_rows/make.sh makes its own (memory, rocksdb,
# savepoint).
set -eu
FIXTURE_DIR=$(cd "$(dirname "$0")" && pwd) WEIR_FIXTURE_PARALLELISM=2 \
    exec "$(dirname "$0")/../canonical_rows/make.sh" "$@"
