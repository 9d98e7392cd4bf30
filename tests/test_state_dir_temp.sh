#!/usr/bin/env bash
# tests/test_state_dir_temp.sh WEIR SOURCE_DIR - a job on RocksDB without
# weir.state.dir keeps its state in a temporary folder of its own (under
# $TMPDIR) and removes it when it ends; before, its first keyed state failed
# ("cannot create keyed state: invalid argument"). A folder that a process
# killed with SIGKILL left is removed by the next job that makes one, and a
# folder of a running job is not.
set -u
WEIR=$1
T=$(mktemp -d /tmp/weir-state-dir-temp-XXXXXX)
pid=
trap '[ -n "$pid" ] && { pkill -9 -P "$pid"; kill -9 "$pid"; } 2> /dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }
mkdir tmp
cat > job.sql <<'SQL'
CREATE TABLE src (g BIGINT, ts AS TO_TIMESTAMP_LTZ(g, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'fields.g.kind' = 'sequence', 'fields.g.start' = '0', 'fields.g.end' = '49999');
CREATE TABLE dst (k BIGINT, ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT MOD(g, 10), window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY MOD(g, 10), window_start, window_end;
SQL
# 50 windows of 10 keys, 100 rows each
check() {
    local rows
    rows=$(find out -type f ! -name '.*' -exec cat {} + | sort -u)
    [ "$(wc -l <<< "$rows")" = 500 ] || fail "$1: $(wc -l <<< "$rows") rows, not 500"
    awk -F, '$3 != 100 {bad = 1} END {exit bad}' <<< "$rows" || fail "$1: a window's count is not 100"
}

TMPDIR=$T/tmp "$WEIR" run job.sql -D state.backend.type=rocksdb > log 2>&1 || fail "the run on RocksDB failed"
check "on RocksDB"
[ -z "$(ls -A tmp)" ] || fail "the temporary state folder stayed: $(ls tmp)"
# A job that runs on (it watches a folder) while others start and end.
mkdir in
echo "1,x" > in/a.csv
cat > live.sql <<'SQL'
CREATE TABLE src (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv',
                                            'source.monitor-interval' = '50ms');
CREATE TABLE dst (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, COUNT(*) FROM src GROUP BY k;
SQL
live() { # starts live.sql; pid in $pid once its folder exists
    TMPDIR=$T/tmp "$WEIR" run live.sql -D state.backend.type=rocksdb > live.log 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        [ -n "$(ls tmp/*.owner 2> /dev/null)" ] && return 0
        sleep 0.05
    done
    kill -9 "$pid"
    fail "the watching job made no state folder"
}
live
held=$(ls -d tmp/weir-state-??????) || fail "the owner file stands without its folder: $(ls tmp)"
# Made by mkdtemp, 0700; a job once removed it while planning and the store
# made it again, 0755 (and for that moment the owner file stood alone).
[ "$(stat -c %a "$held")" = 700 ] || fail "the state folder is $(stat -c %a "$held"), not 700"
TMPDIR=$T/tmp "$WEIR" run job.sql -D state.backend.type=rocksdb > log 2>&1 || fail "the run beside a running one failed"
check "beside a running job"
[ -d "$held" ] || fail "a job removed the state folder of a job still running"
kill -9 "$pid"
wait "$pid" 2> /dev/null
[ -d "$held" ] && [ -f "$held.owner" ] || fail "SIGKILL did not leave the folder (the test needs it)"
TMPDIR=$T/tmp "$WEIR" run job.sql -D state.backend.type=rocksdb > log 2>&1 || fail "the run after the SIGKILL failed"
check "after a SIGKILL"
[ -z "$(ls -A tmp)" ] || fail "the folder of the killed job stayed: $(ls tmp)"

# Restoring an incremental RocksDB checkpoint into the memory backend
# (no weir.state.dir) unpacks its files in a temporary weir-restore folder:
# it has an owner file too, so the folder of a restore that a SIGKILL
# stopped is removed by the next restore, and a held one is kept.
rm -rf tmp && mkdir tmp
cat > grow.sql <<'SQL'
CREATE TABLE src (g BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20000',
  'fields.g.kind' = 'sequence', 'fields.g.start' = '0', 'fields.g.end' = '9999999');
CREATE TABLE dst (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT MOD(g, 1000), COUNT(*) FROM src GROUP BY MOD(g, 1000);
SQL
TMPDIR=$T/tmp "$WEIR" run grow.sql -D state.backend.type=rocksdb -D state.backend.incremental=true \
    -D state.checkpoints.dir=ck -D execution.checkpointing.interval=100ms > log 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -n "$(ls ck/shared 2> /dev/null)" ] && break; sleep 0.05; done
sleep 0.3
kill -9 "$pid"
wait "$pid" 2> /dev/null
pid=
[ -n "$(ls ck/shared 2> /dev/null)" ] || fail "the RocksDB run wrote no shared file"
# One folder left by a killed restore (its owner file held by nobody), one
# of a restore still running (its owner file locked by a live process).
mkdir tmp/weir-restore-Killed tmp/weir-restore-Living
echo 99999999 > tmp/weir-restore-Killed.owner
echo 1 > tmp/weir-restore-Living.owner
flock tmp/weir-restore-Living.owner sleep 600 > /dev/null 2>&1 &
pid=$!
TMPDIR=$T/tmp "$WEIR" run grow.sql -D state.backend.type=memory -D state.checkpoints.dir=ck \
    -D execution.checkpointing.interval=100ms > restore.log 2>&1 &
rpid=$!
for _ in $(seq 1 600); do grep -q "restoring from checkpoint" restore.log && break; sleep 0.05; done
kill -TERM "$rpid"
wait "$rpid" 2> /dev/null
grep -q "restoring from checkpoint" restore.log || fail "the memory backend did not restore: $(tail -3 restore.log)"
grep -q "ERROR" restore.log && fail "the restore failed: $(grep ERROR restore.log | head -3)"
[ -e tmp/weir-restore-Killed ] && fail "the folder of a killed restore stayed"
[ -d tmp/weir-restore-Living ] || fail "a restore removed the folder of another one still running"
pkill -9 -P "$pid"
kill -9 "$pid"
wait "$pid" 2> /dev/null
pid=
left=$(ls tmp | grep -v "^weir-state-" | grep -v "^weir-restore-Living")
[ -z "$left" ] || fail "the restore left: $left"
echo "test_state_dir_temp: ok"
