#!/usr/bin/env bash
# tests/test_hybrid_crash.sh WEIR SOURCE_DIR - exactly-once across the
# switch of a hybrid source: a job reading a history (files; then a range of
# the live topic itself) and then the live topic into a TUMBLE window and an
# exactly-once filesystem sink, checkpointing every 10 ms, is killed with
# SIGKILL (in turn once a checkpoint of the history phase, then one of the
# live phase, has completed, plus a random few milliseconds) and restarted
# with the same checkpoint folder; its visible output must equal that of an
# uninterrupted run. Kills go on (up to three times as many) until runs
# resumed from checkpoints of both phases (weir's checkpoint inspector
# shows each split's position and phase); at least one must have resumed
# mid-input.
#
# WEIR_HYBRID_CRASH_SEED replays a kill schedule; WEIR_HYBRID_CRASH_KILLS
# (default 4 per history kind) and WEIR_HYBRID_CRASH_MSGS (default 45000)
# size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_hybrid_crash: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_HYBRID_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_HYBRID_CRASH_KILLS:-4}
MSGS=${WEIR_HYBRID_CRASH_MSGS:-45000}
RANDOM=$SEED
echo "test_hybrid_crash: seed $SEED (WEIR_HYBRID_CRASH_SEED=$SEED replays it), $MSGS events, $KILLS kills per history kind"
T=$(mktemp -d /tmp/weir-hybrid-crash-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

"$MOCK" -f boot ev:3 lv:3 > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)
# One event stream per partition, out of order by less than the watermark
# delay, so no row is late whatever the interleaving and every run has the
# same output. Topic ev holds MSGS events. For the files history, the files
# hold four times as many earlier events of each partition and topic lv the
# same events as ev (files read much faster than Kafka: a long history
# gives the kills time to land in it).
gen() { awk -v n="$1" -v s="$2" -v seed="$3" 'BEGIN { srand(seed); for (i = 0; i < n; i++) {
        ts = 1000000 + (s + i) * 3 - int(rand() * 200);
        printf "{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%d}\n", int(rand() * 40), int(rand() * 1000), ts } }'; }
mkdir hist
PER=$((MSGS / 3))
HIST=$((PER * 3 / 4))
for p in 0 1 2; do
    gen "$((PER * 5))" "$p" "$((11 + p))" > "all$p"
    head -n "$((PER * 4))" "all$p" > "hist/part-$p.json"
    tail -n +"$((PER * 4 + 1))" "all$p" > "p$p"
    kcat -P -b "$B" -t ev -p "$p" < "p$p" || fail "kcat could not produce"
    kcat -P -b "$B" -t lv -p "$p" < "p$p" || fail "kcat could not produce"
done

job() { # job NAME HISTORY-OPTIONS
    cat > "$1.sql" <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
WITH ('connector' = 'hybrid', 'format' = 'json', $2,
  'live.connector' = 'kafka', 'properties.bootstrap.servers' = '$B',
  'live.scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '8kb');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
EOF
}
# files, then the rest of the events in another topic, from its start
job files "'history.connector' = 'filesystem', 'history.path' = 'hist',
  'topic' = 'lv', 'live.scan.startup.mode' = 'earliest-offset'"
# a range of the topic, then the topic from where the range ends
job range "'topic' = 'ev', 'history.connector' = 'kafka', 'history.scan.startup.mode' = 'earliest-offset',
  'history.scan.bounded.mode' = 'specific-offsets',
  'history.scan.bounded.specific-offsets' = 'partition:0,offset:$HIST;partition:1,offset:$((HIST / 2));partition:2,offset:$((PER - 10))'"

# Checkpoints are kept, so that the poll below never reads one being deleted.
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=10ms -D parallelism.default=2
    -D state.checkpoints.num-retained=1000)
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null | sort; }
hidden() { find out -maxdepth 1 -type f -name '.part-*' 2> /dev/null | wc -l; }
# The phases of the checkpoint the next run resumes from: "live" when a
# live split has a position (files: its id says so; a range of the topic:
# the position's first byte is the phase), "history" when a history split
# has one (both when one subtask had switched and the other had not),
# nothing when there is no checkpoint or the input had ended there.
phase_of_latest() { # sets PH
    local c="" d n best=-1
    for d in ckpt/chk-*; do # no subprocess: this runs in a tight poll
        [ -f "$d/_metadata" ] || continue
        n=${d##*-}
        if ((n > best)); then best=$n; c=$d; fi
    done
    PH=
    [ -n "$c" ] || return 0
    if [ "$c" != "${last_ck:-}" ]; then
        last_ck=$c
        last_phase=$("$WEIR" inspect "$c" 2> /dev/null | awk '
            /source split live:.*position/ || /source split .*position 0x01/ { live = 1 }
            /source split history:.*position/ || /source split .*position 0x00/ { hist = 1 }
            END { if (hist) printf "history "; if (live) printf "live" }')
    fi
    PH=$last_phase
}

for kind in files range; do
    rm -rf out ckpt log
    start=$(date +%s%N)
    "$WEIR" run "$kind.sql" -D parallelism.default=2 > /dev/null 2> log || fail "$kind: the reference run failed"
    ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    visible > "ref-$kind.txt"
    rm -rf out
    total=$MSGS
    [ "$kind" = files ] && total=$((MSGS * 5))
    [ "$(awk -F, '{ n += $4 } END { print n }' "ref-$kind.txt")" -eq "$total" ] ||
        fail "$kind: the reference run did not count every event once"
    kills=0
    in_hist=0
    in_live=0
    : > log
    # A run that finished before its kill starts the job over (its output
    # was complete: the next runs make it again). A slow machine (the
    # sanitizers, a loaded CI box) gets more attempts until some run
    # resumes mid-input.
    for ((i = 1; i <= KILLS || (i <= 3 * KILLS && (in_hist == 0 || in_live == 0)) || (i <= 3 * KILLS + 12 && in_hist + in_live == 0); i++)); do
        last_ck=
        phase_of_latest; ph=$PH
        case $ph in *history*) in_hist=$((in_hist + 1)) ;; esac
        case $ph in *live*) in_live=$((in_live + 1)) ;; esac
        # Odd attempts aim at the history phase, even ones at the live
        # phase: wait (a bounded poll) until a checkpoint of that phase
        # completed, then kill after a random few milliseconds more.
        want=live
        [ $((i % 2)) -eq 1 ] && want=history
        "$WEIR" run "$kind.sql" "${CK[@]}" > /dev/null 2>> log &
        pid=$!
        # bounded by twice the uninterrupted run's time
        deadline=$(( $(date +%s%N) / 1000000 + 2 * ref_ms + 1000 ))
        while (( $(date +%s%N) / 1000000 < deadline )); do
            kill -0 "$pid" 2> /dev/null || break
            phase_of_latest; ph=$PH
            case $ph in *$want*) break ;; esac
            sleep 0.002
        done
        [ $want = live ] && sleep "$(awk -v d="$((RANDOM % 30))" 'BEGIN { printf "%.3f", d / 1000 }')"
        kill -9 "$pid" 2> /dev/null
        { wait "$pid"; } 2> /dev/null
        st=$?
        if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -ne 0 ]; then fail "$kind: attempt $i exited $st"; else rm -rf out ckpt; fi
    done
    phase_of_latest; ph=$PH
    case $ph in *history*) in_hist=$((in_hist + 1)) ;; esac
    case $ph in *live*) in_live=$((in_live + 1)) ;; esac
    "$WEIR" run "$kind.sql" "${CK[@]}" > /dev/null 2>> log || fail "$kind: the last run failed"
    visible > "got-$kind.txt"
    cmp -s "ref-$kind.txt" "got-$kind.txt" || { diff "ref-$kind.txt" "got-$kind.txt" | head -5; fail "$kind: output differs from the uninterrupted run (seed $SEED)"; }
    [ "$(hidden)" -eq 0 ] || fail "$kind: hidden part files left behind"
    # How far each run got depends on the machine's speed; a run must have
    # resumed mid-input at least once (the phases it resumed in are shown).
    [ $((in_hist + in_live)) -gt 0 ] || fail "$kind: no run resumed from a checkpoint in the middle of the input (seed $SEED)"
    echo "  $kind history: $kills kills in a ${ref_ms} ms run; resumed in the history phase $in_hist times, in the live phase $in_live times: output equals the uninterrupted run"
done
echo "test_hybrid_crash: passed"
