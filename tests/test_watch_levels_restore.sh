#!/usr/bin/env bash
# tests/test_watch_levels_restore.sh WEIR SOURCE_DIR - sources that watch
# a folder, stopped and restored. Two watched sources w and g (each at
# parallelism 1, the rest at 2) meet in a union under a window aggregation
# split for its DISTINCT aggregate (a partial level keyed by key and bucket,
# then the final one) with a second window over its window_time, and a
# cascade (a window over another's window_time). Once the job committed
# results of the first files, SIGTERM stops it: both files are read to
# their ends, the last first-level windows are still open. The job resumes
# from the final checkpoint at parallelism 2 or 4, and new files come: g's
# first (later rows, and a last row of a key the query filters out that
# carries g's watermark past every row), then w's (rows as late as g's,
# and such a last row). A restored source subtask whose splits had all
# ended must hold its restored watermark, as the run that was not stopped
# does, until a new file comes (no idle timeout is set): announced idle,
# the union's watermark followed g alone and w's new rows were late there.
# The expected output comes from a model of the windows (every row is
# later than the one before it in its source, so none is late), so the
# stop and restore must lose nothing. Runs WEIR_WATCH_LEVELS_RUNS times (default 4) over rows drawn
# from WEIR_SEED (random unless set). Every wait polls (bounded).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
RUNS=${WEIR_WATCH_LEVELS_RUNS:-4}
restore_init watch-levels-restore "$1"

# rows(SEED, N, AFTER_MS): k, ts_ms, v as JSON lines, each later than the
# one before (a row at its split's watermark could be late)
rows() { awk -v s="$1" -v n="$2" -v t="$3" 'BEGIN { srand(s); for (i = 0; i < n; i++) {
    t += 1 + int(rand() * 1300); printf "{\"k\":\"%c\",\"ts_ms\":%d,\"v\":%d}\n", 97 + int(rand() * 5), t,
        int(rand() * 8) } }'; }
last_ms() { tail -1 "$1" | sed 's/.*"ts_ms":\([0-9]*\).*/\1/'; }
SEED=${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}
rows $((SEED + 1)) 150 1800 > a.json
rows $((SEED + 2)) 150 1800 > g1.json
t1=$(last_ms a.json)
[ "$(last_ms g1.json)" -gt "$t1" ] && t1=$(last_ms g1.json)
end_row='{"k":"end","ts_ms":9000000,"v":0}'
{ rows $((SEED + 3)) 150 "$t1"; echo "$end_row"; } > b.json
{ rows $((SEED + 4)) 150 "$t1"; echo "$end_row"; } > g2.json

cat > live.sql <<'SQL'
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '2';
CREATE TABLE w (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'json',
  'source.monitor-interval' = '50ms', 'scan.parallelism' = '1');
CREATE TABLE g (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'in2', 'format' = 'json',
  'source.monitor-interval' = '50ms', 'scan.parallelism' = '1');
CREATE VIEW r AS SELECT k, v, ts FROM w WHERE k <> 'end' UNION ALL SELECT k, v, ts FROM g WHERE k <> 'end';
CREATE VIEW c1 AS SELECT k, window_time AS rt, COUNT(DISTINCT v) AS cd, SUM(v) AS s
  FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '2' SECOND))
  GROUP BY k, window_start, window_end;
CREATE TABLE q1 (ws TIMESTAMP(3), n BIGINT, cd BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/q1', 'format' = 'csv');
INSERT INTO q1 SELECT window_start, COUNT(*), SUM(cd), SUM(s)
  FROM TABLE(TUMBLE(TABLE c1, DESCRIPTOR(rt), INTERVAL '6' SECOND)) GROUP BY window_start, window_end;
CREATE VIEW c2 AS SELECT k, window_time AS rt, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end;
CREATE TABLE q2 (ws TIMESTAMP(3), c BIGINT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/q2', 'format' = 'csv');
INSERT INTO q2 SELECT window_start, COUNT(*), SUM(n)
  FROM TABLE(TUMBLE(TABLE c2, DESCRIPTOR(rt), INTERVAL '9' SECOND)) GROUP BY window_start, window_end;
SQL

# The model: first level per key and window, second level over window_time
# (the first window's end - 1 ms); every row of both files counts.
cat a.json b.json g1.json g2.json | python3 -c '
import json, sys, datetime
def fmt(ms):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000)
rows = [json.loads(l) for l in sys.stdin]
rows = [r for r in rows if r["k"] != "end"]
def level1(size):
    w = {}
    for r in rows:
        w.setdefault((r["k"], r["ts_ms"] // size), []).append(r["v"])
    return [((b + 1) * size - 1, vs) for (k, b), vs in w.items()]
q1 = {}
for rt, vs in level1(2000):
    e = q1.setdefault(rt // 6000 * 6000, [0, 0, 0])
    e[0] += 1; e[1] += len(set(vs)); e[2] += sum(vs)
q2 = {}
for rt, vs in level1(3000):
    e = q2.setdefault(rt // 9000 * 9000, [0, 0])
    e[0] += 1; e[1] += len(vs)
with open("want1", "w") as f:
    for ws, e in q1.items(): f.write("%s,%d,%d,%d\n" % ((fmt(ws),) + tuple(e)))
with open("want2", "w") as f:
    for ws, e in q2.items(): f.write("%s,%d,%d\n" % ((fmt(ws),) + tuple(e)))
' || fail "the model failed"
want1=$(LC_ALL=C sort want1)
want2=$(LC_ALL=C sort want2)
table() { find "$1" -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms)
for ((r = 1; r <= RUNS; r++)); do
    p=$((r % 2 ? 2 : 4))
    rm -rf in in2 out ckpt
    mkdir in in2 && cp a.json in/ && cp g1.json in2/
    "$WEIR" run live.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> log &
    pid=$!
    for ((i = 0; i < 600; i++)); do [ -n "$(table out/q2)" ] && break; sleep 0.05; done
    [ -n "$(table out/q2)" ] || fail "run $r: the first run committed nothing"
    stop_run TERM
    [ $st -eq 143 ] || fail "run $r: SIGTERM exited $st, not 143"
    grep -q "final checkpoint chk-[0-9]* committed" log || fail "run $r: the stop committed no final checkpoint"
    [ "$(table out/q1)" != "$want1" ] || fail "run $r: the first run fired every window"
    "$WEIR" run live.sql "${CK[@]}" -D parallelism.default=$p > /dev/null 2> log &
    pid=$!
    for ((i = 0; i < 600; i++)); do grep -q "restoring from checkpoint" log && break; sleep 0.05; done
    grep -q "restoring from checkpoint" log || fail "run $r: the rerun did not resume"
    # g's next file first, w's a moment later: once g has read its file
    # (the sleep only makes that likely; the result must not depend on it),
    # g's watermark is far ahead, and w's rows are late unless w's restored
    # watermark still holds the union back, as in a run that was not stopped.
    cp g2.json in2/.g2.tmp && mv in2/.g2.tmp in2/g2.json
    sleep 1
    cp b.json in/.b.tmp && mv in/.b.tmp in/b.json
    end=$((SECONDS + 20))
    until { [ "$(table out/q1)" = "$want1" ] && [ "$(table out/q2)" = "$want2" ]; } ||
        [ $SECONDS -ge $end ]; do sleep 0.1; done
    got1=$(table out/q1)
    got2=$(table out/q2)
    stop_run INT
    if [ "$got1" != "$want1" ] || [ "$got2" != "$want2" ]; then
        grep -h "late" log | head -5
        diff <(echo "$want1"; echo "$want2") <(echo "$got1"; echo "$got2") | head
        fail "run $r (restored at parallelism $p, WEIR_SEED=$SEED): stop + restore differs from the model"
    fi
done
echo "PASS: $RUNS stops of a watching job and restores (parallelism 2 and 4) equal the model (WEIR_SEED=$SEED)"
