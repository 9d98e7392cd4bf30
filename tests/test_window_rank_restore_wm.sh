#!/usr/bin/env bash
# tests/test_window_rank_restore_wm.sh WEIR SOURCE_DIR - a window Top-N
# and a window join keep their watermarks across a restore. A job watching
# a folder ranks the top 2 of each 1-second TUMBLE window at parallelism 2,
# and joins the rows of even v with those of odd v of each window and key;
# once the windows up to [8 s, 9 s) have fired and been committed, SIGTERM
# stops it. A new file then brings two rows of the window [2 s, 3 s) that
# fired long ago (one of each side), and rows of later windows; the
# bounded job resumes from the last checkpoint. The old rows must be late,
# as in a run without the restore: each restored operator's watermark (the
# join's, each side's) starts from its checkpoint's, not from nothing
# (before, the rows opened their window again: ranked first, and joined).
# The output must equal a bounded run over both files without those rows.
# WEIR_WRANK_WM_RUNS stops and restores (default 3). Every wait polls.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
RUNS=${WEIR_WRANK_WM_RUNS:-3}
restore_init wrank-restore-wm "$1"

# 1 000 rows at 10 ms steps (0 - 9.99 s), keys a-d, values 0 - 99
awk 'BEGIN { srand(11); for (i = 0; i < 1000; i++)
    printf "{\"k\":\"%c\",\"ts_ms\":%d,\"v\":%d}\n", 97 + int(rand() * 4), i * 10, int(rand() * 100) }' > a.json
printf '%s\n' '{"k":"a","ts_ms":2500,"v":999}' '{"k":"a","ts_ms":2600,"v":998}' \
    '{"k":"b","ts_ms":10500,"v":7}' '{"k":"b","ts_ms":10600,"v":8}' '{"k":"c","ts_ms":12000,"v":8}' > b.json
job() { # $1: the folder, $2: extra source options ("" for bounded)
    cat <<SQL
CREATE TABLE t (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json'$2);
CREATE TABLE o (ws TIMESTAMP(3), k STRING, v INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT window_start, k, v, rn FROM (
  SELECT window_start, window_end, k, v,
         ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, k) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 2;
CREATE TABLE j (ws TIMESTAMP(3), k STRING, lv INT, rv INT)
  WITH ('connector' = 'filesystem', 'path' = 'jout', 'format' = 'csv');
INSERT INTO j SELECT l.window_start, l.k, l.v, r.v
FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(v, 2) = 0) l
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(v, 2) = 1) r
ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end;
SQL
}
job in ", 'source.monitor-interval' = '50ms'" > live.sql
job in "" > final.sql
job ref "" > ref.sql
table() { find "${1:-out}" -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

# the reference: both files at once, the late rows left out
mkdir ref && cp a.json ref/ && grep -v '"v":99[89]' b.json > ref/b.json
"$WEIR" run ref.sql -D parallelism.default=2 > /dev/null 2> reflog || { cat reflog; fail "the reference run failed"; }
want=$(table)
[ "$(grep -c . <<< "$want")" = 23 ] || fail "the reference has $(grep -c . <<< "$want") rows, not 23"
jwant=$(table jout)
grep -q '^1970-01-01 00:00:10.000,b,8,7$' <<< "$jwant" || fail "the reference join lacks the pair of b.json"
grep -q '^1970-01-01 00:00:02' <<< "$jwant" || fail "the reference join has no pair in [2 s, 3 s)"
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms -D parallelism.default=2)
for ((r = 1; r <= RUNS; r++)); do
    rm -rf out jout ckpt in && mkdir in && cp a.json in/
    "$WEIR" run live.sql "${CK[@]}" > /dev/null 2> live.log &
    pid=$!
    # the window [8 s, 9 s) fired and committed
    for ((i = 0; i < 600; i++)); do table | grep -q '^1970-01-01 00:00:08' && break; sleep 0.05; done
    table | grep -q '^1970-01-01 00:00:08' || { kill -9 "$pid"; cat live.log; fail "run $r: no window up to 9 s fired"; }
    kill -TERM "$pid"
    wait "$pid"
    st=$?
    pid=
    [ $st -eq 143 ] || { cat live.log; fail "run $r: SIGTERM exited $st, not 143"; }
    cp b.json in/
    "$WEIR" run final.sql "${CK[@]}" > /dev/null 2> final.log || { cat final.log; fail "run $r: the restored run failed"; }
    grep -q "restoring from checkpoint" final.log || fail "run $r: the bounded run did not resume"
    got=$(table)
    if [ "$got" != "$want" ]; then
        diff <(echo "$want") <(echo "$got") | head
        fail "run $r: stop + restore differs from the bounded run without the late rows"
    fi
    got=$(table jout)
    if [ "$got" != "$jwant" ]; then
        diff <(echo "$jwant") <(echo "$got") | head
        fail "run $r: the window join's stop + restore differs from the bounded run without the late rows"
    fi
done
echo "PASS: $RUNS stops and restores drop the late rows as one run does"
