#!/usr/bin/env bash
# tests/test_distinct_restore_diff.sh WEIR SOURCE_DIR - randomized
# differential test of COUNT(DISTINCT) in a GROUP BY with retractions across
# a stop (final checkpoint) and a restore at another parallelism, against a
# Python model (tests/distinct_restore_diff.py).
# Bounded: WEIR_DRDIFF_JOBS cases (default 6; 2 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_DRDIFF_JOB=i one case of it.
# Failing cases go to WEIR_DRDIFF_OUT (default ./distinct_restore_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/distinct_restore_diff.py" --weir "$weir" --out "${WEIR_DRDIFF_OUT:-$PWD/distinct_restore_diff_failures}"
