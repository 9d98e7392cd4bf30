#!/usr/bin/env bash
# tests/test_nats_crash.sh WEIR SOURCE_DIR - exactly-once from NATS to NATS:
# a job reading three subjects of a JetStream stream (bounded at its last
# sequence) into a TUMBLE window COUNT/SUM and a NATS sink with
# 'sink.delivery-guarantee' = 'exactly-once', checkpointing every 10 ms, is
# killed with SIGKILL at random moments and restarted with the same
# checkpoint folder. What a consumer of the output stream sees must equal
# the output of an uninterrupted run: every window once, no duplicates.
# The source resumes from the stream sequences in the checkpoint; the sink
# publishes each checkpoint's rows when it completes, and again (under the
# same message ids, dropped by the server's duplicate window) after a
# restore.
#
# WEIR_NATS_CRASH_SEED replays a kill schedule; WEIR_NATS_CRASH_KILLS
# (default 6) and WEIR_NATS_CRASH_MSGS (default 15000) size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
if ! command -v nats-server > /dev/null || [ ! -x "$(dirname "$WEIR")/weir-nats-tool" ]; then
    echo "test_nats_crash: SKIPPED (no nats-server or no weir-nats-tool)"; exit 0
fi
SEED=${WEIR_NATS_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_NATS_CRASH_KILLS:-6}
MSGS=${WEIR_NATS_CRASH_MSGS:-15000}
RANDOM=$SEED
echo "test_nats_crash: seed $SEED (WEIR_NATS_CRASH_SEED=$SEED replays it), $MSGS messages, $KILLS kills"
T=$(mktemp -d /tmp/weir-nats-crash-XXXXXX)
. "$SRC/tests/support/nats_server.sh"
cleanup() { nats_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }
nats_start "$T/nats" || fail "nats-server did not start"
U=$NATS_URL
tool() { "$NATS_TOOL" "$U" "$@" || fail "weir-nats-tool $*"; }

tool stream ev "ev.0,ev.1,ev.2"
tool stream ref "ref.>"
tool stream got "got.>"
# Event times are out of order by less than the watermark delay inside each
# subject: no record is late, whatever the interleaving of the subjects, so
# every run has the same output.
for p in 0 1 2; do
    awk -v n="$((MSGS / 3))" -v p="$p" 'BEGIN { srand(11 + p); for (i = 0; i < n; i++) {
        ts = 1000000 + i * 3 + int(rand() * 200);
        printf "{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%d}\n", int(rand() * 40), int(rand() * 1000), ts } }' |
        tool pub ev.$p
done
job() { # $1: output subject
    cat <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'ev',
  'scan.bounded.mode' = 'latest', 'format' = 'json');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)
WITH ('connector' = 'nats', 'servers' = '$U', 'sink.subject' = '$1', 'format' = 'csv',
      'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
EOF
}
job ref.out > ref.sql
CK=(-D execution.checkpointing.interval=10ms -D parallelism.default=2)
visible() { "$NATS_TOOL" "$U" dump "$1" | awk -F'\t' -v s="$2" '$2 == s' | cut -f4 | sort; }

start=$(date +%s%N)
"$WEIR" run ref.sql -D state.checkpoints.dir=refckpt "${CK[@]}" > /dev/null 2> log ||
    fail "the reference run failed"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
visible ref ref.out > ref.txt
[ -s ref.txt ] || fail "the reference run published nothing"
[ "$(awk -F, '{ n += $4 } END { print n }' ref.txt)" -eq $((MSGS / 3 * 3)) ] ||
    fail "the reference run did not count every record"
[ -z "$(uniq -d ref.txt)" ] || fail "the reference run published a row twice"
echo "  reference: $(wc -l < ref.txt) windows in $ref_ms ms"
max_delay=$(( ref_ms > 200 ? ref_ms : 200 ))

# Rounds: each kills one job (its own checkpoint folder and output subject)
# until a run completes it; then its output is checked and the next round
# starts, until KILLS kills happened and some run resumed mid-input.
mid_resumes() { grep "restoring from checkpoint" log | grep -vc "nothing is left"; }
round=0
new_round() { round=$((round + 1)); job "got.r$round" > "job$round.sql"; }
end_round() {
    "$WEIR" run "job$round.sql" -D state.checkpoints.dir="ckpt$round" "${CK[@]}" > /dev/null 2>> log ||
        fail "the last run of round $round failed"
    visible got "got.r$round" > got.txt
    [ -z "$(uniq -d got.txt)" ] || { uniq -d got.txt | head -3; fail "round $round: a consumer sees a row twice (seed $SEED)"; }
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "round $round: output differs from the uninterrupted run (seed $SEED)"; }
}
# ckpts DIR: how many checkpoints DIR holds (the number of the newest)
ckpts() {
    local c=("$1"/chk-*) n=0 d
    for d in "${c[@]}"; do
        [ -e "$d" ] && [ "${d##*/chk-}" -gt "$n" ] && n=${d##*/chk-}
    done
    echo "$n"
}
kills=0
: > log
new_round
for ((i = 1; (kills < KILLS && i <= 4 * KILLS) || ($(mid_resumes) == 0 && i <= 4 * KILLS + 16); i++)); do
    delay=$(( RANDOM % (max_delay * 2 / 3) + 1 ))
    "$WEIR" run "job$round.sql" -D state.checkpoints.dir="ckpt$round" "${CK[@]}" > /dev/null 2>> log &
    pid=$!
    # Three kills in four land just after a checkpoint of this run (a
    # restore mid-input), the others anywhere, start-up included. The job
    # reads its input in a few tenths of a second: a kill aimed later than
    # a few tens of milliseconds after the checkpoint would mostly find it
    # ended on a loaded machine.
    if (( RANDOM % 4 )); then
        delay=$(( RANDOM % 40 ))
        # (a glob, not find: a loop of processes would see the checkpoint
        # late on a loaded machine)
        before=$(ckpts "ckpt$round")
        for ((w = 0; w < 500; w++)); do
            [ "$(ckpts "ckpt$round")" -gt "$before" ] && break
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.01
        done
    fi
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
    st=$?
    if [ $st -eq 137 ]; then
        kills=$((kills + 1))
    elif [ $st -eq 0 ]; then
        end_round
        new_round
    else
        fail "attempt $i exited $st"
    fi
done
end_round
[ "$(mid_resumes)" -gt 0 ] || fail "no run resumed from a checkpoint in the middle of the input"
echo "  $kills kills at random moments in $round rounds, $(mid_resumes) resumed mid-input: a consumer sees the uninterrupted run's rows, none twice"
echo "test_nats_crash: passed"
