#!/usr/bin/env bash
# tests/test_window_levels_restore.sh WEIR SOURCE_DIR - two window levels
# across a stop and a restore. A job watching a folder runs a window
# aggregation split for its DISTINCT aggregate (a partial level keyed by
# key and bucket, then the final one) under a second window over its
# window_time, and a cascade (a window over another's window_time) without
# the split, at parallelism 2. Once a checkpoint exists (the input read,
# first-level windows still open), SIGTERM stops it; the bounded job then
# resumes from the final checkpoint, also at parallelism 2. Its output must
# equal one bounded run's: no result the first level fires after the
# restore may be late at the second (a restored source subtask whose split
# had ended must not be counted out as idle downstream). The loss depended
# on thread timing, so the stop and restore repeat (WEIR_LEVELS_RUNS times,
# default 8). Every wait polls (bounded).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
RUNS=${WEIR_LEVELS_RUNS:-8}
restore_init levels-restore "$1"

# 150 rows over about 100 s of event time, keys a-e, some out of order
awk 'BEGIN { srand(5); t = 1800; for (i = 1; i <= 150; i++) {
    t += int(rand() * 1300); ts = t - (rand() < 0.1 ? int(rand() * 4000) : 0);
    printf "{\"id\":%d,\"k\":\"%c\",\"ts_ms\":%d,\"v\":%d,\"d\":%.2f}\n", i, 97 + int(rand() * 5), ts,
        int(rand() * 20), rand() < 0.3 ? int(rand() * 4) : rand() * 200 - 100 } }' > in.json
job() { # $1: extra source options ("" for bounded)
    cat <<SQL
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '1';
CREATE TABLE t0 (id BIGINT, k STRING, ts_ms BIGINT, v INT, d DOUBLE, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'json'$1);
CREATE VIEW c1 AS SELECT k, window_time AS rt, STDDEV_SAMP(DISTINCT d) AS a0, SUM(v) AS a1
  FROM TABLE(CUMULATE(TABLE t0, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
  GROUP BY k, window_start, window_end;
CREATE TABLE q1 (ws TIMESTAMP(3), we TIMESTAMP(3), b0 BIGINT, b1 BIGINT, b2 INT)
  WITH ('connector' = 'filesystem', 'path' = 'out/q1', 'format' = 'debezium-json');
INSERT INTO q1 SELECT window_start, window_end, COUNT(*), COUNT(a0), MIN(a1)
  FROM TABLE(TUMBLE(TABLE c1, DESCRIPTOR(rt), INTERVAL '6' SECOND)) GROUP BY window_start, window_end;
CREATE VIEW c2 AS SELECT k, window_time AS rt, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE t0, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end;
CREATE TABLE q2 (ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/q2', 'format' = 'debezium-json');
INSERT INTO q2 SELECT window_start, window_end, COUNT(*), SUM(n)
  FROM TABLE(TUMBLE(TABLE c2, DESCRIPTOR(rt), INTERVAL '9' SECOND)) GROUP BY window_start, window_end;
SQL
}
job ", 'source.monitor-interval' = '50ms'" > live.sql
job "" > final.sql
table() { find "$1" -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

mkdir in && cp in.json in/
"$WEIR" run final.sql -D parallelism.default=2 > /dev/null 2> reflog || { cat reflog; fail "the bounded run failed"; }
want1=$(table out/q1)
want2=$(table out/q2)
[ -n "$want1" ] && [ -n "$want2" ] || fail "the bounded run wrote nothing"
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms)
for ((r = 1; r <= RUNS; r++)); do
    rm -rf out ckpt
    "$WEIR" run live.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> live.log &
    pid=$!
    for ((i = 0; i < 600; i++)); do ls ckpt/chk-*/_metadata > /dev/null 2>&1 && break; sleep 0.05; done
    kill -TERM "$pid"
    wait "$pid"
    st=$?
    pid=
    [ $st -eq 143 ] || { cat live.log; fail "run $r: SIGTERM exited $st, not 143"; }
    "$WEIR" run final.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> final.log ||
        { cat final.log; fail "run $r: the restored run failed"; }
    grep -q "restoring from checkpoint" final.log || fail "run $r: the bounded run did not resume"
    got1=$(table out/q1)
    got2=$(table out/q2)
    if [ "$got1" != "$want1" ] || [ "$got2" != "$want2" ]; then
        grep -h "late" final.log
        diff <(echo "$want1"; echo "$want2") <(echo "$got1"; echo "$got2") | head
        fail "run $r: stop + restore differs from a bounded run"
    fi
done
echo "PASS: $RUNS stops and restores equal the bounded run"
