#!/usr/bin/env bash
# tests/test_join_using_diff.sh WEIR SOURCE_DIR - randomized differential
# test of NATURAL JOIN and JOIN ... USING: tests/join_using_diff.py
# generates two random inputs (repeated keys, NULLs), runs inner and outer
# NATURAL / USING joins selecting * or the common columns qualified and
# not through `weir run` at parallelism 1/2/4 and batch sizes 1/7/1024,
# folds each result changelog into its table and compares it with a
# nested-loop python oracle.
# Bounded: WEIR_USINGDIFF_JOBS jobs (default 6; 2 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_USINGDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_USINGDIFF_OUT (default
# ./join_using_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_using_diff.py" --weir "$weir" --out "${WEIR_USINGDIFF_OUT:-$PWD/join_using_diff_failures}"
