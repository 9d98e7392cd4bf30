#!/usr/bin/env bash
# tests/test_window_rank_restore_wm.sh WEIR SOURCE_DIR - a window Top-N
# keeps its watermark across a restore. A job watching a folder ranks the
# top 2 of each 1-second TUMBLE window at parallelism 2; once the windows
# up to [8 s, 9 s) have fired and been committed, SIGTERM stops it. A new
# file then brings a row of the window [2 s, 3 s) that fired long ago, and
# rows of later windows; the bounded job resumes from the last checkpoint.
# The old row must be late, as in a run without the restore: the restored
# operator's watermark starts from its checkpoint's, not from nothing
# (before, the row opened its window again and was ranked first). The
# output must equal a bounded run over both files without that row.
# WEIR_WRANK_WM_RUNS stops and restores (default 3). Every wait polls.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
RUNS=${WEIR_WRANK_WM_RUNS:-3}
restore_init wrank-restore-wm "$1"

# 1 000 rows at 10 ms steps (0 - 9.99 s), keys a-d, values 0 - 99
awk 'BEGIN { srand(11); for (i = 0; i < 1000; i++)
    printf "{\"k\":\"%c\",\"ts_ms\":%d,\"v\":%d}\n", 97 + int(rand() * 4), i * 10, int(rand() * 100) }' > a.json
late='{"k":"a","ts_ms":2500,"v":999}'
printf '%s\n' "$late" '{"k":"b","ts_ms":10500,"v":7}' '{"k":"c","ts_ms":12000,"v":8}' > b.json
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
SQL
}
job in ", 'source.monitor-interval' = '50ms'" > live.sql
job in "" > final.sql
job ref "" > ref.sql
table() { find out -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

# the reference: both files at once, the late row left out
mkdir ref && cp a.json ref/ && grep -v '"v":999' b.json > ref/b.json
"$WEIR" run ref.sql -D parallelism.default=2 > /dev/null 2> reflog || { cat reflog; fail "the reference run failed"; }
want=$(table)
[ "$(grep -c . <<< "$want")" = 22 ] || fail "the reference has $(grep -c . <<< "$want") rows, not 22"
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms -D parallelism.default=2)
for ((r = 1; r <= RUNS; r++)); do
    rm -rf out ckpt in && mkdir in && cp a.json in/
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
        fail "run $r: stop + restore differs from the bounded run without the late row"
    fi
done
echo "PASS: $RUNS stops and restores drop the late row as one run does"
