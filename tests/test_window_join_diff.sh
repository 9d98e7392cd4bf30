#!/usr/bin/env bash
# tests/test_window_join_diff.sh WEIR SOURCE_DIR - randomized differential
# test of window joins: tests/window_join_diff.py generates two random
# inputs (out of order, ties, late rows, NULL keys and values), joins their
# TUMBLE / HOP / CUMULATE windows (offsets now and then; the rows directly,
# filtered, or aggregated per window first; INNER / LEFT / RIGHT / FULL; a
# second key, a residual; now and then a window aggregation over the
# result, or a second window join) through `weir run` at parallelism 1/2/4,
# batch sizes 1/7/1024, memory or RocksDB, and compares the rows with a
# python model of the rules (docs/joins.md).
# Bounded: WEIR_WJOIN_JOBS cases (default 20; 5 under ASan), up to 5
# queries each. The seed is printed; WEIR_SEED=S replays a run,
# WEIR_WJOIN_JOB=i one case of it. Failing cases are written under
# WEIR_WJOIN_OUT (default ./window_join_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/window_join_diff.py" --weir "$weir" \
  --out "${WEIR_WJOIN_OUT:-$PWD/window_join_diff_failures}"
