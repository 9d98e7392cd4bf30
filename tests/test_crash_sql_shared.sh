#!/usr/bin/env bash
# tests/test_crash_sql_shared.sh WEIR SOURCE_DIR - exactly-once with two
# writers into one filesystem table through `weir run`: two INSERTs (a
# filter and a TUMBLE window aggregation) into one table, and two more into
# one PARTITIONED BY table, commit on checkpoint, checkpointing every
# 100 ms, killed with SIGKILL a few times and restarted with the same
# checkpoint folder. The visible rows must equal those of an uninterrupted
# run, with no hidden file left: each restart commits what its checkpoint
# lists and deletes the other hidden files of this job's writers (also
# those of a killed run that restored the same checkpoint).
#
# WEIR_CRASH_SEED replays a kill schedule; WEIR_CRASH_SHARED_KILLS (default
# 4) and WEIR_CRASH_ROWS change the size.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
crash_init crash-shared "$1" 200000 60000
KILLS=${WEIR_CRASH_SHARED_KILLS:-4}
echo "test_crash_sql_shared: seed $SEED (WEIR_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

awk -v n="$ROWS" 'BEGIN { srand(5); for (i = 0; i < n; i++) {
    ts = 1700000000000 + int(i * 600000 / n) + int(rand() * 2000);
    printf "k%d,%d,%.0f\n", int(rand() * 60), int(rand() * 1000), ts } }' > in.csv
cat > job.sql <<'EOF2'
CREATE TABLE src (
  k STRING,
  v BIGINT,
  ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT, ts_ms BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'sink.rolling-policy.file-size' = '16kb');
CREATE TABLE pdst (k STRING, v BIGINT, hm STRING) PARTITIONED BY (hm)
WITH ('connector' = 'filesystem', 'path' = 'pout', 'format' = 'csv',
      'sink.rolling-policy.file-size' = '16kb');
EXECUTE STATEMENT SET BEGIN
INSERT INTO dst SELECT k, v, ts_ms FROM src WHERE v < 300;
INSERT INTO dst
SELECT k, COUNT(*), UNIX_TIMESTAMP(DATE_FORMAT(window_start, 'yyyy-MM-dd HH:mm:ss')) * 1000
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
INSERT INTO pdst SELECT k, v, DATE_FORMAT(ts, 'HH:mm') FROM src WHERE v >= 700;
INSERT INTO pdst SELECT k, v * 1000, DATE_FORMAT(ts, 'HH:mm') FROM src WHERE v >= 900;
END;
EOF2
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms -D parallelism.default=2)
visible() {
    find out pout -type f -name 'part-*' 2>/dev/null | while read -r f; do
        sed "s|^|$(dirname "$f") |" "$f"; done | LC_ALL=C sort
}
hidden() { find out pout -type f -name '.*' 2>/dev/null | wc -l; }

crash_timed "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
visible > ref.txt
grep -q '^pout/hm=' ref.txt && grep -q '^out ' ref.txt || fail "the reference run wrote too little"
echo "  reference: $(wc -l < ref.txt) rows, $ref_ms ms"
rm -rf out pout

crash_kill_loop "$KILLS" "$WEIR" run job.sql "${CK[@]}"
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log || fail "the last run failed"
visible > got.txt
cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "output differs (seed $SEED)"; }
[ "$(hidden)" -eq 0 ] || fail "hidden files left behind: $(find out pout -name '.*' | head -3)"
echo "  $kills kills, output equals the reference"
echo "PASS"
