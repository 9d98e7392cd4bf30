#!/usr/bin/env bash
# tests/test_restore_join_row_log_1_bounds.sh WEIR SOURCE_DIR - a checkpoint
# of row-log format 1 restores into a job whose join side is bounded where
# the checkpoint's was not, and the reverse (the time bounds written so
# that the planner sees them, or not: the same results). A format-1
# element holds the row's time before the row only where its side was
# bounded ("left+time" in its fingerprint), whatever the job is now: the
# logs are re-encoded by what the checkpoint holds, and the job ends with
# the results of an uninterrupted run. Fixtures: tests/data/
# join_row_log_1_bounds (memory backend, made by its make.sh).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-join-row-log-1-bounds "$1"
FIX=$SRC/tests/data/join_row_log_1_bounds
outs="out_bounds"

fixture_reference

# $1: the fixture (a checkpoint of its job), $2: the job it restores into
for run in "bounded unbounded.sql" "unbounded job.sql"; do
    read -r fixture sql <<<"$run"
    R=$T/$fixture
    fixture_copy "$fixture" "$R"
    cp "$FIX/$sql" "$R/job.sql"
    first=$(newest_checkpoint "$R/ckpt")
    cd "$R" || exit 1
    fixture_restore_killed "$first"
    grep -q "restoring from checkpoint chk-$first " log || fail "$fixture into $sql: not restored"
    grep -q "Join\[0\] of ckpt/chk-$first keeps its row logs in the first element format" log ||
        fail "$fixture into $sql: re-encoding the row logs is not said"
    [ "$(newest_checkpoint ckpt)" -gt "$first" ] || fail "$fixture into $sql: the restored job took no checkpoint"
    fixture_second_run "$fixture into $sql"
    cd "$T" || exit 1
    fixture_compare "$R" "$fixture into $sql"
done
echo "test_restore_join_row_log_1_bounds: ok"
