#!/usr/bin/env bash
# tests/test_temporal_join_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the event-time temporal join (FOR SYSTEM_TIME AS OF a rowtime):
# tests/temporal_join_diff.py generates random versioned tables and probe
# streams (some versioned tables are versioned views: the last row per key
# of an append-only table; out of order, late rows, several versions per key and time,
# keys without versions), runs INNER and LEFT temporal joins with and
# without a residual condition through `weir run` at parallelism 1/2/4 and
# batch sizes 1/7/1024, and compares each result with a python oracle of
# the documented rule (docs/joins.md).
# Bounded: WEIR_TJDIFF_JOBS jobs (default 20; 8 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_TJDIFF_JOB=i one job of it.
# Failing jobs are written under WEIR_TJDIFF_OUT (default ./temporal_join_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/temporal_join_diff.py" --weir "$weir" --out "${WEIR_TJDIFF_OUT:-$PWD/temporal_join_diff_failures}"
