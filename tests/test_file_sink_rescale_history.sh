#!/usr/bin/env bash
# tests/test_file_sink_rescale_history.sh WEIR SOURCE_DIR - the file sink's
# history of runs across a scale-down and a scale-up. A job writes rows
# from a watched folder to a file sink with checkpoints, and is stopped with
# a savepoint and restored at parallelism 2, then 1, then 4; then it is
# stopped (SIGTERM, a final checkpoint) and run again from that newest
# checkpoint. Subtask index 1 wrote files at parallelism 2, was gone at 1
# and came back at 4 without restored state: the restores after that must
# not take its files of the first run for output of a run that went past
# the restored checkpoint. Every row must be visible once at the end.
# (Found by tests/restore_diff.py.)
set -u
WEIR=$1
. "$(cd "$2" && pwd)/tests/support/crash.sh" # await_new_checkpoint
dir=$(mktemp -d "${TMPDIR:-/tmp}/weir-sink-rescale.XXXXXX")
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
pid=
fail() { echo "test_file_sink_rescale_history: FAIL: $*" >&2; exit 1; }
mkdir in
cat > job.sql <<'EOF2'
CREATE TABLE src (id BIGINT, k STRING)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '20ms');
CREATE TABLE out (id BIGINT, k STRING) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out SELECT id, k FROM src;
EOF2
CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=50ms)
rows() { cat out/part-* 2>/dev/null | wc -l; }
# four files, one split each: at parallelism 2 and 4 several subtasks read
add() { for j in 0 1 2 3; do echo "$(( $1 + j )),x" > in/.f$1-$j; mv in/.f$1-$j in/f$1-$j.csv; done; }
# waits until n rows are visible (committed), at most 120 s
await() { for _ in $(seq 2400); do [ "$(rows)" -ge "$1" ] && return 0; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
          fail "$2: $(rows) rows visible, expected $1"; }
# waits until a checkpoint of this run completed (restore done, files dealt with), at most 120 s
await_ckpt() { await_new_checkpoint ckpt "$1"; }
sp=
for step in "0 2" "4 1" "8 4"; do
    set -- $step
    add "$1"
    "$WEIR" run job.sql "${CK[@]}" -D parallelism.default="$2" ${sp:+--from "$sp"} 2> "run$1.log" > /dev/null &
    pid=$!
    await $(( $1 + 4 )) "parallelism $2"
    sp=$("$WEIR" savepoint $pid --stop | tail -1)
    wait $pid || fail "stop with a savepoint at parallelism $2 exited $?: $(tail -3 "run$1.log")"
    [ -d "$sp" ] || fail "no savepoint at parallelism $2: $sp"
done
ls out/part-*-1-*.csv > /dev/null 2>&1 || fail "no file of subtask index 1 (the test needs one)"
# From the savepoint at parallelism 4 once more, stopped by SIGTERM after a
# checkpoint of its own; then a run from that newest checkpoint.
"$WEIR" run job.sql "${CK[@]}" -D parallelism.default=4 --from "$sp" 2> run12.log > /dev/null &
pid=$!
await_ckpt "the run from the savepoint at parallelism 4"
kill -TERM $pid; wait $pid; rc=$?
[ $rc -eq 143 ] || fail "SIGTERM exited $rc: $(tail -3 run12.log)"
[ "$(rows)" -eq 12 ] || fail "after the restore at parallelism 4: $(rows) rows visible, expected 12"
"$WEIR" run job.sql "${CK[@]}" -D parallelism.default=4 2> run13.log > /dev/null &
pid=$!
await_ckpt "the run from the newest checkpoint"
grep -q "restoring from checkpoint" run13.log || fail "the last run did not restore: $(tail -3 run13.log)"
[ "$(rows)" -eq 12 ] || fail "the restore of the newest checkpoint changed the output: $(rows) rows visible, expected 12 ($(ls out | tr '\n' ' '))"
kill -TERM $pid; wait $pid
[ "$(sort out/part-* | uniq | wc -l)" -eq 12 ] && [ "$(rows)" -eq 12 ] || fail "at the end: $(rows) rows visible, expected 12 distinct"
echo "test_file_sink_rescale_history: ok (parallelism 2 -> 1 -> 4 -> 4, 12 rows once each)"
