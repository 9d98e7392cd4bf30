#!/usr/bin/env bash
# tests/test_restore_diff.sh WEIR SOURCE_DIR - randomized differential test
# of stop, crash and restore: tests/restore_diff.py draws jobs from the
# window (sql_diff.py), changelog (changelog_diff.py), CDC (cdc_diff.py),
# window Top-N (window_rank_diff.py), every-aggregate-under-retraction
# (retract_diff.py), window join (window_join_diff.py), MATCH_RECOGNIZE
# (match_diff.py), temporal join (temporal_join_diff.py) and bounded join
# (join_bounded_diff.py) generators, runs each with checkpoints into
# exactly-once file sinks, interrupts it 1-3 times (SIGKILL, SIGTERM, stop
# with a savepoint, a savepoint then SIGKILL, SIGKILL of a run that
# restored a savepoint) and restores it (the newest checkpoint, or --from
# the savepoint - the same one again after that last kind - at another
# parallelism and state backend), CDC and retract inputs growing between
# runs, joins with one input ended before the restore, and compares the
# committed output with the generator's oracle over all the input.
# Bounded: WEIR_RDIFF_JOBS jobs (default 16; 4 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_RDIFF_JOB=i one job of it.
# Failing jobs are written under WEIR_RDIFF_OUT (default ./restore_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/restore_diff.py" --weir "$weir" --out "${WEIR_RDIFF_OUT:-$PWD/restore_diff_failures}"
