#!/usr/bin/env bash
# tests/test_sql_time_diff.sh WEIR SOURCE_DIR - randomized differential test of
# table.local-time-zone (TIMESTAMP_LTZ functions, local-day and local-hour
# windows over DST gaps and overlaps, random zones, 1900-2100) against
# Python's zoneinfo (tests/sql_time_diff.py). Bounded: WEIR_TIME_DIFF_CASES
# jobs (default 6; 2 under ASan) of WEIR_TIME_DIFF_ROWS rows (default 400).
# The seed is printed; WEIR_SEED=S replays a run.
set -u
weir=$1
src=$2
cases=${WEIR_TIME_DIFF_CASES:-6}
if ldd "$weir" 2>/dev/null | grep -q libasan; then cases=${WEIR_TIME_DIFF_CASES:-2}; fi
exec python3 "$src/tests/sql_time_diff.py" --weir "$(cd "$(dirname "$weir")" && pwd)/$(basename "$weir")" --cases "$cases" --rows "${WEIR_TIME_DIFF_ROWS:-400}"
