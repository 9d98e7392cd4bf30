#!/usr/bin/env bash
# tests/test_lookup_join_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the lookup join over numeric keys of mixed types (INT, BIGINT,
# DECIMAL of 2 to 38 digits, DOUBLE): tests/lookup_join_diff.py runs INNER
# and LEFT lookup joins with conditions through `weir run` at parallelism
# 1/2/4 and compares each result with an exact Python oracle.
# Bounded: WEIR_LOOKUPDIFF_JOBS jobs (default 10; 3 under ASan), 4 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_LOOKUPDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_LOOKUPDIFF_OUT (default
# ./lookup_join_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/lookup_join_diff.py" --weir "$weir" --out "${WEIR_LOOKUPDIFF_OUT:-$PWD/lookup_join_diff_failures}"
