#!/usr/bin/env bash
# tests/data/rank_whole_rows/make.sh WEIR [FIXTURE...] - writes the fixtures
# (all, or those named) of test_restore_rank_whole_rows: checkpoints of
# job.sql taken by WEIR, a weir that keeps every Top-N and deduplication
# row whole (before "rank rows: 2"), made as tests/data/canonical_rows/make.sh
# makes its own (memory, rocksdb, rocksdb-incremental, savepoint).
set -eu
FIXTURE_DIR=$(cd "$(dirname "$0")" && pwd) exec "$(dirname "$0")/../canonical_rows/make.sh" "$@"
