#!/usr/bin/env bash
# tests/test_crash_sql_partitioned.sh WEIR SOURCE_DIR - exactly-once of the
# partitioned filesystem sink through `weir run`: a CSV file -> a sink
# PARTITIONED BY (dt, hm) with commit on checkpoint and a success-file
# partition commit, checkpointing every 100 ms, killed with SIGKILL a few
# times and restarted with the same checkpoint folder. Every partition's
# rows must equal those of an uninterrupted run, with no hidden file left
# in any partition folder and a _SUCCESS file in each. Then the folder is
# read back as a PARTITIONED BY source (partition columns from the folder
# names) into an exactly-once file sink, killed and restarted the same way:
# the rows read back are the reference's, each exactly once.
#
# WEIR_CRASH_SEED replays a kill schedule; WEIR_CRASH_PART_KILLS (default 3)
# and WEIR_CRASH_ROWS change the size.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
crash_init crash-part "$1" 200000 60000
KILLS=${WEIR_CRASH_PART_KILLS:-3}
echo "test_crash_sql_partitioned: seed $SEED (WEIR_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

# About ten minutes of event time: ten partitions hm=...
awk -v n="$ROWS" 'BEGIN { srand(11); for (i = 0; i < n; i++) {
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
CREATE TABLE dst (k STRING, v BIGINT, ts_ms BIGINT, dt STRING, hm STRING)
PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
  'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '16kb',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00');
INSERT INTO dst
SELECT k, v, ts_ms, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM src;
EOF2
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms -D parallelism.default=2)
# every visible row, prefixed with its partition folder
visible() {
    find out -type f -name 'part-*' 2>/dev/null | while read -r f; do
        sed "s|^|$(dirname "$f") |" "$f"; done | LC_ALL=C sort
}
hidden() { find out -type f -name '.*' 2>/dev/null | wc -l; }
folders() { find out -mindepth 2 -maxdepth 2 -type d 2>/dev/null | LC_ALL=C sort; }
successes() { find out -mindepth 3 -name _SUCCESS -printf '%h\n' 2>/dev/null | LC_ALL=C sort; }

crash_timed "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
visible > ref.txt
[ -s ref.txt ] || fail "the reference run wrote nothing"
[ "$(folders | wc -l)" -ge 10 ] || fail "expected ten or more partitions: $(folders)"
[ "$(successes)" = "$(folders)" ] || fail "reference: not every partition has _SUCCESS"
echo "  reference: $(wc -l < ref.txt) rows in $(folders | wc -l) partitions, $ref_ms ms"
rm -rf out

crash_kill_loop "$KILLS" "$WEIR" run job.sql "${CK[@]}"
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log || fail "the last run failed"
visible > got.txt
cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "output differs (seed $SEED)"; }
[ "$(hidden)" -eq 0 ] || fail "hidden files left behind: $(find out -name '.*' | head -3)"
[ "$(successes)" = "$(folders)" ] || fail "not every partition has _SUCCESS"
echo "  $kills kills, output equals the reference, every partition committed"

# Read back: the partitioned folder as a PARTITIONED BY source (dt and hm
# from the folder names, the files in byte ranges), into an exactly-once
# file sink, killed and restarted the same way: every row exactly once.
cat > read.sql <<'EOF2'
CREATE TABLE parts (k STRING, v BIGINT, ts_ms BIGINT, dt STRING, hm STRING)
PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
  'source.split-size' = '16kb');
CREATE TABLE back (k STRING, v BIGINT, ts_ms BIGINT, dt STRING, hm STRING) WITH (
  'connector' = 'filesystem', 'path' = 'back', 'format' = 'csv', 'sink.commit-on-checkpoint' = 'true');
INSERT INTO back SELECT * FROM parts;
EOF2
sed -E 's|^out/dt=([^/]*)/hm=([^ ]*) (.*)$|\3,\1,\2|; s/%3A/:/g' ref.txt | LC_ALL=C sort > ref_back.txt
CK2=(-D state.checkpoints.dir=ckpt2 -D execution.checkpointing.interval=100ms -D parallelism.default=2)
crash_kill_loop "$KILLS" "$WEIR" run read.sql "${CK2[@]}"
"$WEIR" run read.sql "${CK2[@]}" > /dev/null 2>> log || fail "the last read-back run failed"
cat back/part-* 2>/dev/null | LC_ALL=C sort > got_back.txt
cmp -s ref_back.txt got_back.txt || { diff ref_back.txt got_back.txt | head -5; fail "read-back differs (seed $SEED)"; }
echo "  read back through a partitioned source: $kills kills, $(wc -l < got_back.txt) rows, each once"
echo "PASS"
