#!/usr/bin/env bash
# tests/test_window_rank_diff.sh WEIR SOURCE_DIR - randomized differential
# test of window Top-N (ROW_NUMBER, RANK, DENSE_RANK; bounds with a lower
# end; ORDER BY with NULLS FIRST/LAST; PARTITION BY a key besides the
# window; a WHERE under the ranking; over a window aggregation; a window
# aggregation over it) and window deduplication over TUMBLE, HOP and
# CUMULATE windows: tests/window_rank_diff.py runs random queries through
# `weir run` at parallelism 1/2/4, batch sizes 1/7/1024, on the heap or
# RocksDB, over one file, one file in byte ranges or several files (splits
# read by one source subtask, the watermark the minimum over them), and
# compares the rows with a python model (docs/sql.md, "Window Top-N and
# window deduplication"; docs/runtime.md, "Time").
# Bounded: WEIR_WRANK_JOBS cases (default 12; 4 under ASan), up to 6 queries
# each, up to WEIR_WRANK_ROWS rows (default 80; more for a soak). The seed
# is printed; WEIR_SEED=S replays a run, WEIR_WRANK_JOB=i one case of it.
# Failing cases are written under WEIR_WRANK_OUT (default
# ./window_rank_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/window_rank_diff.py" --weir "$weir" \
  --out "${WEIR_WRANK_OUT:-$PWD/window_rank_diff_failures}"
