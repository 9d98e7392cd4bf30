#!/usr/bin/env bash
# tests/test_restore_join_row_log_1_bounds.sh WEIR SOURCE_DIR - a checkpoint
# of row-log format 1 restores into a job whose join side is bounded where
# the checkpoint's was not, and the reverse (the time bounds written so
# that the planner sees them, or not: the same results). A format-1
# element holds the row's time before the row only where its side was
# bounded ("left+time" in its fingerprint), whatever the job is now: the
# logs are re-encoded by what the checkpoint holds, and the job ends with
# the results of an uninterrupted run. And a checkpoint of format 2 of
# the side bounded with its time a join key does not fit the side
# unbounded, nor the reverse. Fixtures: tests/data/
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
# Format 2: with the time a join key too (a.ts = w.we), the bounded side
# keeps the time before the row ("left+time-key") and the unbounded one
# leaves it out with the key ("left-key"): a checkpoint of either does not
# fit the other, refused as it restores (not a row that does not decode).
for sql in job.sql unbounded.sql; do
    sed 's/ON a.m = w.mr WHERE/ON a.m = w.mr AND a.ts = w.we WHERE/' "$FIX/$sql" > "$T/keyed-$sql"
done
for run in "job.sql unbounded.sql left+time-key left-key" "unbounded.sql job.sql left-key left+time-key"; do
    read -r from into was now <<<"$run"
    R=$T/run-keyed-$from
    mkdir "$R" && cp "$T/keyed-$from" "$R/job.sql" && cd "$R" || exit 1
    "$WEIR" run job.sql > /dev/null 2> log &
    pid=$!
    for ((i = 0; i < 600; i++)); do [ "$(newest_checkpoint ckpt)" -gt 0 ] && break; sleep 0.01; done
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    pid=
    [ "$(newest_checkpoint ckpt)" -gt 0 ] || fail "keyed $from: no checkpoint"
    cp "$T/keyed-$into" job.sql
    "$WEIR" run job.sql > /dev/null 2> log
    st=$?
    [ $st -eq 3 ] && grep -q "row log 2 $was right-key in the checkpoint, 2 $now right-key now" log ||
        fail "keyed $from into $into: exit $st, not refused for its row log"
done
echo "test_restore_join_row_log_1_bounds: ok"
