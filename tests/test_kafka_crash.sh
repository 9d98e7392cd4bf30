#!/usr/bin/env bash
# tests/test_kafka_crash.sh WEIR SOURCE_DIR - exactly-once from Kafka: a job
# reading a 3-partition topic (bounded at the latest offsets) into a TUMBLE
# window COUNT/SUM and an exactly-once filesystem sink, checkpointing every
# 100 ms, is killed with SIGKILL at random moments and restarted with the
# same checkpoint folder; its visible output must equal that of an
# uninterrupted run. A restore resumes from the offsets in the checkpoint,
# not from the consumer group's (the group here has offsets committed far
# ahead: a job that trusted them would lose records).
#
# WEIR_KAFKA_CRASH_SEED replays a kill schedule; WEIR_KAFKA_CRASH_KILLS
# (default 20) and WEIR_KAFKA_CRASH_MSGS (default 30000) size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_kafka_crash: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_KAFKA_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_KAFKA_CRASH_KILLS:-20}
MSGS=${WEIR_KAFKA_CRASH_MSGS:-120000}
RANDOM=$SEED
echo "test_kafka_crash: seed $SEED (WEIR_KAFKA_CRASH_SEED=$SEED replays it), $MSGS messages, $KILLS kills"
T=$(mktemp -d /tmp/weir-kafka-crash-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

"$MOCK" -f boot ev:3 > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)
for p in 0 1 2; do
    awk -v n="$((MSGS / 3))" -v p="$p" 'BEGIN { srand(11 + p); for (i = 0; i < n; i++) {
        ts = 1000000 + i * 3 + int(rand() * 200);
        printf "{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%d}\n", int(rand() * 40), int(rand() * 1000), ts } }' |
        kcat -P -b "$B" -t ev -p "$p" || fail "kcat could not produce"
done
# Event times are out of order by less than the watermark delay: no record
# is late, whatever the interleaving of the partitions, so every run has the
# same output. The group's committed offsets point past most of the data.
cat > ahead.sql <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'ev',
  'properties.bootstrap.servers' = '$B', 'properties.group.id' = 'crash', 'format' = 'json',
  'scan.startup.mode' = 'specific-offsets',
  'scan.startup.specific-offsets' = 'partition:0,offset:$((MSGS / 3 - 5));partition:1,offset:$((MSGS / 3 - 5));partition:2,offset:$((MSGS / 3 - 5))',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT v FROM src;
EOF
"$WEIR" run ahead.sql -D state.checkpoints.dir=ahead -D execution.checkpointing.interval=50ms \
    > /dev/null 2> log || fail "the job that commits offsets ahead failed"

cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'ev', 'properties.bootstrap.servers' = '$B',
  'properties.group.id' = 'crash', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '8kb');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
EOF
# Checkpoints every 10 ms: the whole input takes well under a second to read
# on a quiet machine, and kills must land between completed checkpoints.
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=10ms -D parallelism.default=2)
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null | sort; }
hidden() { find out -maxdepth 1 -type f -name '.part-*' 2> /dev/null | wc -l; }

start=$(date +%s%N)
"$WEIR" run job.sql -D parallelism.default=2 > /dev/null 2> log || fail "the reference run failed"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
visible > ref.txt
rm -rf out
[ -s ref.txt ] || fail "the reference run wrote nothing"
[ "$(awk -F, '{ n += $4 } END { print n }' ref.txt)" -gt $((MSGS * 9 / 10)) ] ||
    fail "the reference run counted too few records"
echo "  reference: $(wc -l < ref.txt) windows in $ref_ms ms"
max_delay=$(( ref_ms > 200 ? ref_ms : 200 ))

mid_resumes() { grep "restoring from checkpoint" log | grep -vc "nothing is left"; }
kills=0
# KILLS kills, and more (at most 3 * KILLS + 8 attempts) until a run resumed
# in the middle of the input at least once. A run that ends before its kill
# lands, with no mid-input resume yet, leaves only a final checkpoint: then
# start over from nothing (no checkpoint, no output).
for ((i = 1; i <= KILLS || (i <= 3 * KILLS + 8 && $(mid_resumes) == 0); i++)); do
    delay=$(( RANDOM % (max_delay * 2 / 3) + 1 ))
    "$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log &
    pid=$!
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
    st=$?
    if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -ne 0 ]; then fail "attempt $i exited $st"; fi
    [ $st -eq 0 ] && [ "$(mid_resumes)" -eq 0 ] && rm -rf ckpt out
done
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log || fail "the last run failed"
visible > got.txt
cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "output differs from the uninterrupted run (seed $SEED)"; }
[ "$(hidden)" -eq 0 ] || fail "hidden part files left behind"
[ "$(mid_resumes)" -gt 0 ] || fail "no run resumed from a checkpoint in the middle of the input"
echo "  $kills kills at random moments, $(mid_resumes) resumed mid-input: output equals the uninterrupted run"
echo "test_kafka_crash: passed"
