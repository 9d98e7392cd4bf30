#!/usr/bin/env bash
# tests/test_window_semi_diff.sh WEIR SOURCE_DIR - randomized differential
# test of window SEMI and ANTI joins (IN / NOT IN / EXISTS / NOT EXISTS
# subqueries correlated on the bounds of TUMBLE or HOP windows):
# tests/window_semi_diff.py generates two random inputs (out of order, late
# rows, NULLs), runs random queries through `weir run` at parallelism 1/2/4
# and batch sizes 1/7/1024 and compares the rows with a python model of the
# rules (docs/joins.md).
# Bounded: WEIR_WSEMI_JOBS cases (default 20; 6 under ASan), up to 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_WSEMI_JOB=i one
# case of it. Failing cases are written under WEIR_WSEMI_OUT (default
# ./window_semi_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/window_semi_diff.py" --weir "$weir" \
  --out "${WEIR_WSEMI_OUT:-$PWD/window_semi_diff_failures}"
