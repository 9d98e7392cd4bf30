#!/usr/bin/env bash
# tests/test_sql_time_diff.sh WEIR SOURCE_DIR - randomized differential test of
# table.local-time-zone (TIMESTAMP_LTZ functions, local-day and local-hour
# windows over DST gaps and overlaps, random zones, 1900-2100) against
# Python's zoneinfo (tests/sql_time_diff.py). Bounded: WEIR_TIME_DIFF_CASES
# jobs (default 6; 2 under ASan) of WEIR_TIME_DIFF_ROWS rows (default 400).
# The seed is printed; WEIR_SEED=S replays a run, WEIR_TIME_DIFF_CASE=i one
# case of it.
set -u
weir=$1
src=$2
exec python3 "$src/tests/sql_time_diff.py" --weir "$weir" --out "${WEIR_TIME_DIFF_OUT:-$PWD/sql_time_diff_failures}"
