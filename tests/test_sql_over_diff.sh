#!/usr/bin/env bash
# tests/test_sql_over_diff.sh WEIR SOURCE_DIR - randomized differential test
# of OVER aggregation (LAG with offsets and defaults, SUM/AVG/COUNT(DISTINCT)
# over ROWS and RANGE frames, bounded and unbounded, ties in time) against a
# Python oracle that shares no code with weir (tests/sql_over_diff.py).
# Bounded: WEIR_OVERDIFF_JOBS jobs of 6 queries (default 8; 3 under ASan). The seed
# is printed; WEIR_SEED=S replays a run, WEIR_OVERDIFF_JOB=i one job of it.
# Failing cases are written under
# WEIR_OVERDIFF_OUT (default ./sql_over_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/sql_over_diff.py" --weir "$weir" --out "${WEIR_OVERDIFF_OUT:-$PWD/sql_over_diff_failures}"
