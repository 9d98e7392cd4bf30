#!/usr/bin/env bash
# tests/test_join_prune_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the projection below joins (only the columns read above a join
# go into it): tests/join_prune_diff.py generates three random inputs and
# joins of them (ON with residual conditions, the comma form with WHERE
# filters, a derived table, a third input, inner and outer), selecting and
# aggregating a few columns, runs them through `weir run` at parallelism
# 1/2/4 and batch sizes 1/7/1024, folds each changelog into its table and
# compares it with a nested-loop python oracle.
# Bounded: WEIR_PRUNEDIFF_JOBS jobs (default 6; 2 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_PRUNEDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_PRUNEDIFF_OUT (default
# ./join_prune_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_prune_diff.py" --weir "$weir" --out "${WEIR_PRUNEDIFF_OUT:-$PWD/join_prune_diff_failures}"
