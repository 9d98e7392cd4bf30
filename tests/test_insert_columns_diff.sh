#!/usr/bin/env bash
# tests/test_insert_columns_diff.sh WEIR SOURCE_DIR - randomized differential
# test of INSERT INTO t (c1, c2, ...): tests/insert_columns_diff.py writes
# print tables of random columns (some NOT NULL) and INSERTs with random
# column lists (random subsets in random order) from SELECTs over a random
# input or from VALUES, runs them as one statement set through `weir run`
# at parallelism 1/2/4 and compares the printed rows with a python oracle
# that puts each query column in its listed column and NULL elsewhere.
# Bounded: WEIR_INSCOLSDIFF_JOBS jobs (default 12; 3 under ASan). The seed
# is printed; WEIR_SEED=S replays a run, WEIR_INSCOLSDIFF_JOB=i one job of
# it. Failing jobs are written under WEIR_INSCOLSDIFF_OUT (default
# ./insert_columns_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/insert_columns_diff.py" --weir "$weir" --out "${WEIR_INSCOLSDIFF_OUT:-$PWD/insert_columns_diff_failures}"
