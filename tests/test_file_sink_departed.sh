#!/usr/bin/env bash
# tests/test_file_sink_departed.sh WEIR SOURCE_DIR - hidden part files of a
# subtask index that a later run does not have are cleaned up.
#
# A job with an exactly-once file sink runs at parallelism 3 and is killed
# (SIGKILL) before its first checkpoint completes: each of its 3 sink
# subtasks leaves a hidden in-progress file. The same job (same checkpoint
# folder: the same job) then starts at parallelism 2 without a checkpoint
# to restore and runs to its end. Subtask index 2 is nobody's in that run:
# subtask 0 (2 mod 2) must delete its files as its own. Afterwards: no
# hidden file is left, and the output is every generated row once (the
# killed run committed nothing). test_cluster_members failed this way
# when its processes restarted on fewer processes before their first
# checkpoint completed. (A restored run on fewer subtasks sweeps the same
# way; datagen restores only at its own parallelism, so this test does not
# reach that.)
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-sink-departed-XXXXXX)
trap '[ -n "${WEIR_DEPARTED_KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; ls -a out 2> /dev/null | head; exit 1; }
ROWS=20000
seq 0 $((ROWS - 1)) | awk '{ print $1 "," $1 * 3 }' | sort > want.txt
# job RATE: the job at RATE rows per second
job() {
    cat <<SQL
CREATE TABLE src (g BIGINT) WITH ('connector' = 'datagen', 'fields.g.kind' = 'sequence',
  'fields.g.start' = '0', 'fields.g.end' = '$((ROWS - 1))', 'rows-per-second' = '$1');
CREATE TABLE dst (g BIGINT, h BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT g, g * 3 FROM src;
SQL
}
job 1000 > slow.sql
job 100000 > fast.sql
# hidden INDEX: whether subtask INDEX has a hidden file in out
hidden() { ls -a out 2> /dev/null | grep -q "^\.part-.*-$1-[0-9]*\.csv\.inprogress$"; }
# killed_at_3 INTERVAL: runs slow.sql at parallelism 3 until each subtask
# has a hidden file, then kills it
killed_at_3() {
    "$WEIR" run slow.sql -D parallelism.default=3 -D state.checkpoints.dir=ck \
        -D execution.checkpointing.interval="$1" > /dev/null 2>> log &
    local pid=$! i
    for ((i = 0; i < 300; i++)); do hidden 0 && hidden 1 && hidden 2 && break; sleep 0.05; done
    kill -9 "$pid"; wait "$pid" 2> /dev/null
    hidden 2 || fail "the run at parallelism 3 left no hidden file of subtask 2"
}
check() {
    cat out/part-* 2> /dev/null | sort > got.txt
    cmp -s want.txt got.txt ||
        fail "$1: lost $(comm -23 want.txt got.txt | wc -l), extra $(comm -13 want.txt got.txt | wc -l)"
    left=$(ls -a out | grep inprogress)
    [ -z "$left" ] || fail "$1: hidden files left: $(echo "$left" | head -3)"
}

# No checkpoint completed: the run at parallelism 2 starts afresh.
killed_at_3 1h
"$WEIR" run fast.sql -D parallelism.default=2 -D state.checkpoints.dir=ck \
    -D execution.checkpointing.interval=1h > /dev/null 2>> log || fail "the fresh run at parallelism 2 failed"
check "a fresh start at parallelism 2 after a killed run at 3"
echo "  fresh start on 2 subtasks after 3: subtask 2's hidden files deleted, output whole"

echo "test_file_sink_departed: passed"
