#!/usr/bin/env bash
# tests/test_sql_date_diff.sh WEIR SOURCE_DIR - randomized differential test of
# DATE and TIME values (CSV in and out, CAST, +/- INTERVAL, TIMESTAMPADD,
# TIMESTAMPDIFF, EXTRACT, FLOOR/CEIL, DATE_FORMAT, comparisons, GROUP BY a
# DATE, JSON_OBJECT/JSON_ARRAY) against Python's datetime (tests/sql_date_diff.py). Bounded:
# WEIR_DATE_DIFF_CASES jobs (default 8; 2 under ASan). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_DATE_DIFF_CASE=i one case of it.
set -u
weir=$1
src=$2
exec python3 "$src/tests/sql_date_diff.py" --weir "$weir" --out "${WEIR_DATE_DIFF_OUT:-$PWD/sql_date_diff_failures}"
