#!/usr/bin/env bash
# tests/test_restore_ended_input.sh WEIR SOURCE_DIR - an input whose
# sources had ended when a checkpoint was taken is held at the operator's
# own watermark across the restore, not at the end of input's (+inf). One
# job (a statement set) reads a bounded folder `lin` and a watched folder
# `rin`: an interval join, a window join and an event-time temporal join
# of the two (lin being the versioned side), and MATCH_RECOGNIZE over lin
# alone. Once MATCH_RECOGNIZE's last match of lin's first file is
# committed (it needs lin's end-of-input watermark, so the checkpoint that
# committed it was taken after every operator saw lin end), SIGTERM stops
# the job; a second file comes into each folder, with rows well after the
# first's, and the bounded job resumes. The joins are held at rin's
# watermark, which the new rows of lin are after: on time (before, each
# held lin at +inf and dropped every new row as late), so their outputs
# must equal a bounded run over both files. MATCH_RECOGNIZE, whose only
# input had ended, fired everything at the end of input: every new row is
# late there (as for a window aggregation), and its output stays what the
# first run committed.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
restore_init restore-ended-input "$1"

rows() { # $1: first i, $2: last i, $3: time offset (ms); key a, time i * 10 + offset, v = i
    awk -v a="$1" -v b="$2" -v o="$3" \
        'BEGIN { for (i = a; i <= b; i++) printf "{\"k\":\"a\",\"ts_ms\":%d,\"v\":%d}\n", i * 10 + o, i }'
}
job() { # $1: the folders' parent, $2: rin's extra options ("" for bounded)
    cat <<SQL
CREATE TABLE l (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '$1/lin', 'format' = 'json');
CREATE TABLE lv (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '$1/lin', 'format' = 'json');
CREATE TABLE r (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '$1/rin', 'format' = 'json'$2);
CREATE TABLE i (k STRING, lt BIGINT, lv INT, rt BIGINT, rv INT)
  WITH ('connector' = 'filesystem', 'path' = 'iout', 'format' = 'csv');
CREATE TABLE j (ws TIMESTAMP(3), k STRING, lv INT, rv INT)
  WITH ('connector' = 'filesystem', 'path' = 'jout', 'format' = 'csv');
CREATE TABLE tj (k STRING, t BIGINT, v INT, vt BIGINT, vv INT)
  WITH ('connector' = 'filesystem', 'path' = 'tout', 'format' = 'csv');
CREATE TABLE m (k STRING, at BIGINT, av INT, bv INT)
  WITH ('connector' = 'filesystem', 'path' = 'mout', 'format' = 'csv');
INSERT INTO i SELECT l.k, l.ts_ms, l.v, r.ts_ms, r.v
FROM l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - INTERVAL '0.01' SECOND AND l.ts + INTERVAL '0.01' SECOND;
INSERT INTO j SELECT a.window_start, a.k, a.v, b.v
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '1' SECOND))) a
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' SECOND))) b
ON a.k = b.k AND a.v = b.v AND a.window_start = b.window_start AND a.window_end = b.window_end;
INSERT INTO tj SELECT r.k, r.ts_ms, r.v, lv.ts_ms, lv.v
FROM r LEFT JOIN lv FOR SYSTEM_TIME AS OF r.ts ON r.k = lv.k;
INSERT INTO m SELECT * FROM l MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts
  MEASURES A.ts_ms AS at, A.v AS av, B.v AS bv ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B) DEFINE B AS B.v = A.v + 1);
SQL
}
OUTS="iout jout tout mout"
job . ", 'source.monitor-interval' = '50ms'" > live.sql
job . "" > final.sql
job ref "" > ref.sql
table() { find "$1" -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

mkdir -p ref/lin ref/rin
rows 0 99 0 > ref/lin/l1.json
rows 0 99 5 > ref/rin/r1.json
rows 200 299 0 > ref/lin/l2.json
rows 200 299 5 > ref/rin/r2.json
"$WEIR" run ref.sql > /dev/null 2> reflog || { cat reflog; fail "the reference run failed"; }
for o in $OUTS; do
    eval "want_$o=\$(table $o)"
done
# what the second files bring, in each output
grep -q '^a,2990,299,2995,299$' <<< "$want_iout" || fail "the reference interval join lacks the second files' last pair"
grep -q '^1970-01-01 00:00:02.000,a,200,200$' <<< "$want_jout" || fail "the reference window join lacks [2 s, 3 s)"
grep -q '^a,2005,200,2000,200$' <<< "$want_tout" || fail "the reference temporal join lacks the second files' version"
grep -q '^a,2980,298,299$' <<< "$want_mout" || fail "the reference MATCH_RECOGNIZE lacks the second file's last match"
want_mout=$(awk -F, '$2 < 2000' <<< "$want_mout") # the first file's matches alone (see the top)
[ "$(grep -c . <<< "$want_mout")" = 50 ] || fail "the reference has $(grep -c . <<< "$want_mout") matches of the first file, not 50"
rm -rf $OUTS

mkdir lin rin
cp ref/lin/l1.json lin/
cp ref/rin/r1.json rin/
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms)
"$WEIR" run live.sql "${CK[@]}" > /dev/null 2> live.log &
pid=$!
# MATCH_RECOGNIZE's last match of l1.json is committed: lin had ended at that checkpoint
for ((n = 0; n < 600; n++)); do table mout | grep -q '^a,980,98,99$' && break; sleep 0.05; done
table mout | grep -q '^a,980,98,99$' || { cat live.log; fail "the last match of l1.json was not committed"; }
stop_run TERM
[ $st -eq 143 ] || { cat live.log; fail "SIGTERM exited $st, not 143"; }
cp ref/lin/l2.json lin/
cp ref/rin/r2.json rin/
"$WEIR" run final.sql "${CK[@]}" > /dev/null 2> final.log || { cat final.log; fail "the restored run failed"; }
grep -q "restoring from checkpoint" final.log || fail "the bounded run did not resume"
for o in $OUTS; do
    got=$(table $o)
    eval "want=\$want_$o"
    if [ "$got" != "$want" ]; then
        diff <(echo "$want") <(echo "$got") | head
        grep -i late final.log
        fail "$o: stop + restore differs from the bounded run over both files"
    fi
done
echo "PASS: an input that had ended is held at the operator's watermark across the restore"
