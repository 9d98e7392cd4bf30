#!/usr/bin/env bash
# tests/test_subquery_scope_diff.sh WEIR SOURCE_DIR - randomized differential
# test of names in nested correlated subqueries (EXISTS, IN, COUNT(*)
# scalar; 2 to 5 levels; names shared across levels, written bare where the
# nearest level that has them is meant): tests/subquery_scope_diff.py runs
# random queries through `weir run` at parallelism 1/2/4 and compares each
# result with SQLite's over the same rows.
# Bounded: WEIR_SCOPEDIFF_JOBS jobs (default 6; 2 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_SCOPEDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_SCOPEDIFF_OUT (default
# ./subquery_scope_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/subquery_scope_diff.py" --weir "$weir" --out "${WEIR_SCOPEDIFF_OUT:-$PWD/subquery_scope_diff_failures}"
