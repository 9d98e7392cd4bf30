#!/usr/bin/env bash
# tests/test_window_tz_diff.sh WEIR SOURCE_DIR - randomized differential
# test of window joins (INNER/LEFT/RIGHT/FULL), window Top-N and window
# deduplication over windows of local wall time (TIMESTAMP_LTZ attributes
# in table.local-time-zone, around DST gaps and overlaps of random zones):
# tests/window_tz_diff.py runs random queries through `weir run` at
# parallelism 1/2/4 and batch sizes 1/7/1024 and compares the rows with a
# python model on Python's zoneinfo (docs/sql.md, "Time zones").
# Bounded: WEIR_WTZ_JOBS cases (default 12; 4 under ASan), up to 5 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_WTZ_JOB=i one
# case of it. Failing cases are written under WEIR_WTZ_OUT (default
# ./window_tz_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/window_tz_diff.py" --weir "$weir" \
  --out "${WEIR_WTZ_OUT:-$PWD/window_tz_diff_failures}"
