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
trap '[ -n "$pid" ] && kill -9 "$pid" 2> /dev/null; rm -rf "$T"' EXIT
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
held=$(ls -d tmp/weir-state-??????)
TMPDIR=$T/tmp "$WEIR" run job.sql -D state.backend.type=rocksdb > log 2>&1 || fail "the run beside a running one failed"
check "beside a running job"
[ -d "$held" ] || fail "a job removed the state folder of a job still running"
kill -9 "$pid"
wait "$pid" 2> /dev/null
[ -d "$held" ] && [ -f "$held.owner" ] || fail "SIGKILL did not leave the folder (the test needs it)"
TMPDIR=$T/tmp "$WEIR" run job.sql -D state.backend.type=rocksdb > log 2>&1 || fail "the run after the SIGKILL failed"
check "after a SIGKILL"
[ -z "$(ls -A tmp)" ] || fail "the folder of the killed job stayed: $(ls tmp)"
echo "test_state_dir_temp: ok"
