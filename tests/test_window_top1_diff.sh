#!/usr/bin/env bash
# tests/test_window_top1_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the join of a window aggregation with its window's MAX (Nexmark
# q5's shape), which weir plans as a window Top-1 with ties where that is
# exact: tests/window_top1_diff.py generates a random stream of bids (ties,
# NULL prices, out of order within the watermark delay), runs random
# queries of the shape - rewritten and not - through `weir run` at
# parallelism 1/2/4 and batch sizes 1/7/1024 and compares the rows with a
# python model.
# Bounded: WEIR_WTOP1_JOBS cases (default 12; 4 under ASan), up to 6
# queries each. The seed is printed; WEIR_SEED=S replays a run,
# WEIR_WTOP1_JOB=i one case of it. Failing cases are written under
# WEIR_WTOP1_OUT (default ./window_top1_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/window_top1_diff.py" --weir "$weir" \
  --out "${WEIR_WTOP1_OUT:-$PWD/window_top1_diff_failures}"
