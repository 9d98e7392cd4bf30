#!/usr/bin/env bash
# tests/test_setop_widen_diff.sh WEIR SOURCE_DIR - randomized differential
# test of set operations over numeric columns of different types:
# tests/setop_widen_diff.py draws the two inputs' types (TINYINT ... BIGINT,
# DECIMALs of several precisions and scales, DOUBLE, FLOAT) and values that
# meet only once widened, runs UNION [ALL], INTERSECT [ALL] and EXCEPT [ALL]
# (the values as text and TYPEOF, or as the debezium-json format encodes
# them), GROUP BY and TUMBLE sums over a widened UNION ALL, and refusals of
# a number beside another type, through `weir run` at parallelism 1/2/4 and
# batch sizes 1/7/1024, and compares each folded result with a python
# oracle of Flink's widening rule (docs/sql.md).
# Bounded: WEIR_SETOPWIDEN_JOBS jobs (default 20; 4 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_SETOPWIDEN_JOB=i one job of it.
# Failing jobs are written under WEIR_SETOPWIDEN_OUT (default
# ./setop_widen_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/setop_widen_diff.py" --weir "$weir" --out "${WEIR_SETOPWIDEN_OUT:-$PWD/setop_widen_diff_failures}"
