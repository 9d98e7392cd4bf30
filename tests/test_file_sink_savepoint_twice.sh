#!/usr/bin/env bash
# tests/test_file_sink_savepoint_twice.sh WEIR SOURCE_DIR - one savepoint
# restored twice at a higher parallelism than it was taken at. A job
# writes rows from a watched folder to a file sink with checkpoints; it is
# stopped with a savepoint at parallelism 1. Run A restores the savepoint at
# parallelism 4, reads four new files (several subtasks commit), and is
# killed. Run B restores the same savepoint again, at parallelism 4 and, in
# a second round, at 2: what run A committed came after the savepoint and
# must go - also the files of subtask indexes that have no state in the
# savepoint (1-3), and of indexes run B does not have (2, 3). Every row
# must be visible exactly once at the end. A third round writes to object
# storage (s3://, against s3rver, when installed: scripts/install-deps.sh).
# (Found by tests/restore_diff.py.)
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
. "$SRC/tests/support/s3_server.sh"
. "$SRC/tests/support/crash.sh" # await_new_checkpoint
base=$(mktemp -d "${TMPDIR:-/tmp}/weir-sink-twice.XXXXXX")
pid=
trap 'kill -KILL $pid 2>/dev/null; s3_stop; rm -rf "$base"' EXIT
fail() { echo "test_file_sink_savepoint_twice: FAIL: $*" >&2; exit 1; }
CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=50ms)
OUT=out # the sink's path: out, or s3://tw/out
# the visible part files' lines, and their names
lines() {
    if [ "$OUT" = out ]; then cat out/part-* 2>/dev/null; return; fi
    s3_keys out | grep '/part-' | while read -r k; do cat "$S3_DATA/tw/$k._S3rver_object"; done
}
names() { if [ "$OUT" = out ]; then ls out 2>/dev/null; else s3_keys out | sed 's|.*/||'; fi; }
rows() { lines | wc -l; }
distinct() { lines | sort -u | wc -l; }
# four files, one split each: at parallelism 4 several subtasks read
add() { for j in 0 1 2 3; do echo "$(( $1 + j )),x" > in/.f$1-$j; mv in/.f$1-$j in/f$1-$j.csv; done; }
# waits until n distinct rows are visible (committed), at most 120 s
await() { for _ in $(seq 2400); do [ "$(distinct)" -ge "$1" ] && return 0; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
          fail "$2: $(distinct) distinct rows visible, expected $1"; }
await_ckpt() { await_new_checkpoint ckpt "$1"; }
round() {  # round PARALLELISM_OF_RUN_B
    local pb=$1 on=${2:-} dir=$base/p$1${2:-}
    mkdir -p "$dir/in" && cd "$dir" || exit 1
    cat > job.sql <<EOF2
CREATE TABLE src (id BIGINT, k STRING)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '20ms');
CREATE TABLE out (id BIGINT, k STRING) WITH ('connector' = 'filesystem', 'path' = '$OUT', 'format' = 'csv');
INSERT INTO out SELECT id, k FROM src;
EOF2
    add 0
    "$WEIR" run job.sql "${CK[@]}" -D parallelism.default=1 2> run0.log > /dev/null &
    pid=$!
    await 4 "parallelism 1"
    local sp; sp=$("$WEIR" savepoint $pid --stop | tail -1)
    wait $pid || fail "stop with a savepoint exited $?: $(tail -3 run0.log)"
    [ -d "$sp" ] || fail "no savepoint: $sp"
    add 4
    # Run A: the savepoint at parallelism 4, killed after it committed.
    "$WEIR" run job.sql "${CK[@]}" -D parallelism.default=4 --from "$sp" 2> runA.log > /dev/null &
    pid=$!
    await 8 "run A"
    kill -KILL $pid; wait $pid 2>/dev/null
    names | grep -q '^part-[0-9a-f]*-[0-9a-f]*-[123]-' ||
        fail "run A committed no file at subtask index 1-3 (the test needs one): $(names | tr '\n' ' ')"
    [ "$(rows)" -eq 8 ] || fail "after run A: $(rows) rows visible, expected 8"
    # Run B: the same savepoint again; it reads the four new files again.
    "$WEIR" run job.sql "${CK[@]}" -D parallelism.default="$pb" --from "$sp" 2> runB.log > /dev/null &
    pid=$!
    await_ckpt "run B"
    await 8 "run B"
    await_ckpt "run B after its rows"
    kill -TERM $pid; wait $pid; local rc=$?
    [ $rc -eq 143 ] || fail "SIGTERM exited $rc: $(tail -3 runB.log)"
    [ "$(distinct)" -eq 8 ] && [ "$(rows)" -eq 8 ] ||
        fail "run B at parallelism $pb${on:+ on $on}: $(rows) rows visible, expected 8 distinct ($(names | tr '\n' ' '))"
    cd "$base" || exit 1
}
round 4
round 2
on_s3="object storage skipped: s3rver is not installed"
if s3_available "$SRC" && s3_start "$base/s3" tw; then
    CK+=(-D s3.endpoint="$S3_ENDPOINT" -D s3.access-key=S3RVER -D s3.secret-key=S3RVER -D s3.path.style.access=true)
    # built with object storage at all? (an empty s3:// input)
    printf "CREATE TABLE s (a BIGINT) WITH ('connector' = 'filesystem', 'path' = 's3://tw/probe', 'format' = 'csv');
CREATE TABLE d (a BIGINT) WITH ('connector' = 'blackhole');\nINSERT INTO d SELECT a FROM s;\n" > "$base/probe.sql"
    if (cd "$base" && timeout 120 "$WEIR" run probe.sql "${CK[@]}" 2>&1 | grep -q "not built into"); then
        on_s3="object storage skipped: weir is built without libcurl"
    else
        OUT=s3://tw/out
        round 4 s3
        on_s3="and on object storage"
    fi
fi
echo "test_file_sink_savepoint_twice: ok (savepoint at 1, restored at 4 twice and at 4 then 2: 8 rows once each; $on_s3)"
