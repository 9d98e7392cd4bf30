#!/usr/bin/env bash
# tests/data/join_map_rows/make.sh WEIR [FIXTURE...] - writes the fixtures
# (all, or those named) of test_restore_join_map_rows: checkpoints of
# job.sql taken by WEIR, a weir that keeps every row of a regular join in a
# map entry (before row logs, "row log: 1 ..."), made as
# tests/data/canonical_rows/make.sh makes its own (memory, rocksdb,
# rocksdb-incremental, savepoint).
set -eu
FIXTURE_DIR=$(cd "$(dirname "$0")" && pwd) exec "$(dirname "$0")/../canonical_rows/make.sh" "$@"
