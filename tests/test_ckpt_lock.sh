#!/usr/bin/env bash
# tests/test_ckpt_lock.sh WEIR SOURCE_DIR - one process per folder: while a
# job runs, a second `weir run` on its checkpoint folder is refused, as is a
# second job (with its own checkpoint folder) committing into the same sink
# folder; each message names the holder's process id. A kill -9 of the
# holder releases both locks (the kernel drops them), so the next run
# proceeds. The waits poll for the lock file the first job writes; nothing
# waits on a window.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-ckpt-lock-XXXXXX)
cd "$T" || exit 1
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

cat > job.sql <<'SQL'
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE src (id BIGINT, v BIGINT)
WITH ('connector' = 'datagen', 'rows-per-second' = '200',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE dst (id BIGINT, v BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT id, v FROM src;
SQL

# The holder: an unbounded job (until killed).
"$WEIR" run job.sql -D state.checkpoints.dir=ckpt > /dev/null 2> log1 &
pid=$!
for ((i = 0; i < 600; i++)); do
    ls ckpt 2>/dev/null | grep -q '^chk-' && ls out 2>/dev/null | grep -q '^part-' && break
    kill -0 "$pid" 2> /dev/null || { cat log1; fail "the first job ended"; }
    sleep 0.05
done
ls out 2>/dev/null | grep -q '^part-' || fail "the first job committed nothing"

# Same checkpoint folder: refused before it runs, naming the holder.
# (bounded: a second run that is not refused would run on and on)
timeout 20 "$WEIR" run job.sql -D state.checkpoints.dir=ckpt > /dev/null 2> log
st=$?
[ $st -eq 1 ] || fail "a second run on the same checkpoint folder exited $st, not 1"
grep -q "ckpt: the checkpoint folder is in use by another process (pid $pid)" log ||
    fail "the refusal does not name the folder and pid $pid"

# Its own checkpoint folder, the same sink folder: the job fails at the sink.
timeout 20 "$WEIR" run job.sql -D state.checkpoints.dir=ckpt2 > /dev/null 2> log
st=$?
[ $st -eq 1 ] || fail "a second job committing into the same sink folder exited $st, not 1"
grep -q "out: the sink folder is in use by another process (pid $pid)" log ||
    fail "the sink refusal does not name the folder and pid $pid"
kill -0 "$pid" 2> /dev/null || fail "the refused runs disturbed the first job"

# kill -9 releases the locks: the next run resumes (bounded now).
kill -9 "$pid"
{ wait "$pid"; } 2> /dev/null
pid=
sed -i "s/'rows-per-second' = '200',/'rows-per-second' = '200', 'number-of-rows' = '10',/" job.sql
"$WEIR" run job.sql -D state.checkpoints.dir=ckpt > /dev/null 2> log || fail "the run after kill -9 failed"
grep -q "in use" log && fail "a lock outlived its process"
echo "test_ckpt_lock: ok"
