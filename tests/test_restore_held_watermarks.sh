#!/usr/bin/env bash
# tests/test_restore_held_watermarks.sh WEIR SOURCE_DIR - the operators
# that drop late rows keep their watermarks across a restore: a window
# Top-N, a window join, an interval join, MATCH_RECOGNIZE and an
# event-time temporal join, in one job (a statement set) watching a folder
# at parallelism 2. Once the Top-N's windows up to [8 s, 9 s) have fired
# and been committed, SIGTERM stops it. A new file then brings two rows of
# key a at 2.5 s and 2.6 s, long behind the watermark (one of each join
# side, 999 and 998), and rows of later times; the bounded job resumes from
# the last checkpoint. The old rows must be late, as in a run without the
# restore: each restored operator's watermark (a join's, each input's)
# starts from its checkpoint's, not from nothing. Before, the rows opened
# their window again (ranked first, joined), joined each other in the
# interval join, matched after the rows they precede in MATCH_RECOGNIZE,
# and were joined by the temporal join. Every output must equal a bounded
# run over both files without those rows.
# WEIR_HELD_WM_RUNS stops and restores (default 3). Every wait polls.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
RUNS=${WEIR_HELD_WM_RUNS:-3}
restore_init restore-held-wm "$1"

# 1 000 rows at 10 ms steps (0 - 9.99 s), keys a-d, values 0 - 99
awk 'BEGIN { srand(11); for (i = 0; i < 1000; i++)
    printf "{\"k\":\"%c\",\"ts_ms\":%d,\"v\":%d}\n", 97 + int(rand() * 4), i * 10, int(rand() * 100) }' > a.json
printf '%s\n' '{"k":"a","ts_ms":2500,"v":999}' '{"k":"a","ts_ms":2600,"v":998}' \
    '{"k":"b","ts_ms":10500,"v":7}' '{"k":"b","ts_ms":10600,"v":8}' '{"k":"c","ts_ms":12000,"v":8}' > b.json
OUTS="out jout iout mout tout"
job() { # $1: the folder, $2: extra source options ("" for bounded)
    cat <<SQL
CREATE TABLE t (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json'$2);
CREATE TABLE versions (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json'$2);
CREATE TABLE o (ws TIMESTAMP(3), k STRING, v INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
CREATE TABLE j (ws TIMESTAMP(3), k STRING, lv INT, rv INT)
  WITH ('connector' = 'filesystem', 'path' = 'jout', 'format' = 'csv');
CREATE TABLE i (k STRING, lt BIGINT, lv INT, rt BIGINT, rv INT)
  WITH ('connector' = 'filesystem', 'path' = 'iout', 'format' = 'csv');
CREATE TABLE m (k STRING, at BIGINT, av INT, bv INT)
  WITH ('connector' = 'filesystem', 'path' = 'mout', 'format' = 'csv');
CREATE TABLE tj (k STRING, t BIGINT, v INT, vt BIGINT, vv INT)
  WITH ('connector' = 'filesystem', 'path' = 'tout', 'format' = 'csv');
INSERT INTO o SELECT window_start, k, v, rn FROM (
  SELECT window_start, window_end, k, v,
         ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, k) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 2;
INSERT INTO j SELECT l.window_start, l.k, l.v, r.v
FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(v, 2) = 0) l
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(v, 2) = 1) r
ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end;
INSERT INTO i SELECT l.k, l.ts_ms, l.v, r.ts_ms, r.v
FROM (SELECT * FROM t WHERE MOD(v, 2) = 0) l JOIN (SELECT * FROM t WHERE MOD(v, 2) = 1) r
ON l.k = r.k AND r.ts BETWEEN l.ts - INTERVAL '0.1' SECOND AND l.ts + INTERVAL '0.1' SECOND;
INSERT INTO m SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts
  MEASURES A.ts_ms AS at, A.v AS av, B.v AS bv ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B) DEFINE B AS B.v > A.v + 50);
INSERT INTO tj SELECT t.k, t.ts_ms, t.v, versions.ts_ms, versions.v
FROM t LEFT JOIN versions FOR SYSTEM_TIME AS OF t.ts ON t.k = versions.k;
SQL
}
job in ", 'source.monitor-interval' = '50ms'" > live.sql
job in "" > final.sql
job ref "" > ref.sql
table() { find "${1:-out}" -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

# the reference: both files at once, the late rows left out
mkdir ref && cp a.json ref/ && grep -v '"v":99[89]' b.json > ref/b.json
"$WEIR" run ref.sql -D parallelism.default=2 > /dev/null 2> reflog || { cat reflog; fail "the reference run failed"; }
for o in $OUTS; do
    eval "want_$o=\$(table $o)"
done
[ "$(grep -c . <<< "$want_out")" = 23 ] || fail "the reference has $(grep -c . <<< "$want_out") rows, not 23"
grep -q '^1970-01-01 00:00:10.000,b,8,7$' <<< "$want_jout" || fail "the reference window join lacks the pair of b.json"
grep -q '^1970-01-01 00:00:02' <<< "$want_jout" || fail "the reference window join has no pair in [2 s, 3 s)"
grep -q '^b,10600,8,10500,7$' <<< "$want_iout" || fail "the reference interval join lacks the pair of b.json"
[ "$(grep -c . <<< "$want_mout")" -gt 50 ] || fail "the reference MATCH_RECOGNIZE has $(grep -c . <<< "$want_mout") matches"
[ "$(grep -c . <<< "$want_tout")" = 1003 ] || fail "the reference temporal join has $(grep -c . <<< "$want_tout") rows, not 1003"
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms -D parallelism.default=2)
for ((r = 1; r <= RUNS; r++)); do
    rm -rf $OUTS ckpt in && mkdir in && cp a.json in/
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
    for o in $OUTS; do
        got=$(table $o)
        eval "want=\$want_$o"
        if [ "$got" != "$want" ]; then
            diff <(echo "$want") <(echo "$got") | head
            fail "run $r: $o: stop + restore differs from the bounded run without the late rows"
        fi
    done
done
echo "PASS: $RUNS stops and restores drop the late rows as one run does"
