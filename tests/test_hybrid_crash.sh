#!/usr/bin/env bash
# tests/test_hybrid_crash.sh WEIR SOURCE_DIR - exactly-once across the
# switch of a hybrid source: a job reading a history (files; then a range of
# the live topic itself) and then the live topic into a TUMBLE window and an
# exactly-once filesystem sink, checkpointing every 10 ms, is killed with
# SIGKILL at random moments (spread over the whole run, so kills land in
# the history phase, around the switch and in the live phase) and restarted
# with the same checkpoint folder; its visible output must equal that of an
# uninterrupted run. The runs must have resumed from checkpoints taken in
# both phases (weir's checkpoint inspector shows each split's position).
#
# WEIR_HYBRID_CRASH_SEED replays a kill schedule; WEIR_HYBRID_CRASH_KILLS
# (default 6 per history kind) and WEIR_HYBRID_CRASH_MSGS (default 60000)
# size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_hybrid_crash: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_HYBRID_CRASH_SEED:-$(( $(date +%s) % 100000 + $$ ))}
KILLS=${WEIR_HYBRID_CRASH_KILLS:-6}
MSGS=${WEIR_HYBRID_CRASH_MSGS:-60000}
RANDOM=$SEED
echo "test_hybrid_crash: seed $SEED (WEIR_HYBRID_CRASH_SEED=$SEED replays it), $MSGS events, $KILLS kills per history kind"
T=$(mktemp -d /tmp/weir-hybrid-crash-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

"$MOCK" -f boot ev:3 > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)
# One event stream: the first half is the history (files, 2 of them), the
# whole stream is in the topic (3 partitions). Out of order by less than
# the watermark delay, so no row is late whatever the interleaving and
# every run has the same output.
gen() { awk -v n="$1" -v s="$2" -v seed="$3" 'BEGIN { srand(seed); for (i = 0; i < n; i++) {
        ts = 1000000 + (s + i) * 3 - int(rand() * 200);
        printf "{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%d}\n", int(rand() * 40), int(rand() * 1000), ts } }'; }
mkdir hist
PER=$((MSGS / 3))
for p in 0 1 2; do
    gen "$PER" "$p" "$((11 + p))" > "p$p"
    kcat -P -b "$B" -t ev -p "$p" < "p$p" || fail "kcat could not produce"
    head -n $((PER / 2)) "p$p" >> "hist/part-$((p % 2)).json"
done
HALF=$((PER / 2))

job() { # job NAME HISTORY-OPTIONS
    cat > "$1.sql" <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
WITH ('connector' = 'hybrid', 'format' = 'json', $2,
  'live.connector' = 'kafka', 'topic' = 'ev', 'properties.bootstrap.servers' = '$B',
  'live.scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '8kb');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
EOF
}
# files, then the live topic from the offsets after the files' events
job files "'history.connector' = 'filesystem', 'history.path' = 'hist',
  'live.scan.startup.mode' = 'specific-offsets',
  'live.scan.startup.specific-offsets' = 'partition:0,offset:$HALF;partition:1,offset:$HALF;partition:2,offset:$HALF'"
# a range of the topic, then the topic from where the range ends
job range "'history.connector' = 'kafka', 'history.scan.startup.mode' = 'earliest-offset',
  'history.scan.bounded.mode' = 'specific-offsets',
  'history.scan.bounded.specific-offsets' = 'partition:0,offset:$HALF;partition:1,offset:$((HALF / 2));partition:2,offset:$((HALF * 3 / 2))'"

CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=10ms -D parallelism.default=2)
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null | sort; }
hidden() { find out -maxdepth 1 -type f -name '.part-*' 2> /dev/null | wc -l; }
mid_resumes() { grep "restoring from checkpoint" log | grep -vc "nothing is left"; }

ref=""
for kind in files range; do
    rm -rf out ckpt log
    start=$(date +%s%N)
    "$WEIR" run "$kind.sql" -D parallelism.default=2 > /dev/null 2> log || fail "$kind: the reference run failed"
    ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    visible > "ref-$kind.txt"
    rm -rf out
    [ "$(awk -F, '{ n += $4 } END { print n }' "ref-$kind.txt")" -eq "$MSGS" ] ||
        fail "$kind: the reference run did not count every event once"
    # Both histories cover other events, but the same whole: equal results.
    if [ -n "$ref" ]; then cmp -s "$ref" "ref-$kind.txt" || fail "files and range histories differ"; fi
    ref="ref-$kind.txt"
    max_delay=$(( ref_ms > 300 ? ref_ms : 300 ))
    kills=0
    : > log
    for ((i = 1; i <= KILLS || (i <= 2 * KILLS && $(mid_resumes) == 0); i++)); do
        delay=$(( RANDOM % max_delay + 1 ))
        "$WEIR" run "$kind.sql" "${CK[@]}" > /dev/null 2>> log &
        pid=$!
        sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
        kill -9 "$pid" 2> /dev/null
        { wait "$pid"; } 2> /dev/null
        st=$?
        if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -ne 0 ]; then fail "$kind: attempt $i exited $st"; fi
    done
    "$WEIR" run "$kind.sql" "${CK[@]}" > /dev/null 2>> log || fail "$kind: the last run failed"
    visible > "got-$kind.txt"
    cmp -s "ref-$kind.txt" "got-$kind.txt" || { diff "ref-$kind.txt" "got-$kind.txt" | head -5; fail "$kind: output differs from the uninterrupted run (seed $SEED)"; }
    [ "$(hidden)" -eq 0 ] || fail "$kind: hidden part files left behind"
    [ "$(mid_resumes)" -gt 0 ] || fail "$kind: no run resumed from a checkpoint in the middle of the input"
    echo "  $kind history: $kills kills in a ${ref_ms} ms run, $(mid_resumes) resumed mid-input: output equals the uninterrupted run"
done
echo "test_hybrid_crash: passed"
