#!/usr/bin/env bash
# tests/test_cluster_crash.sh WEIR SOURCE_DIR - checkpoints across the
# processes of one job, and recovery from the death of one (docs/cluster.md),
# against librdkafka's mock cluster over TCP (weir-kafka-mock).
#
# Three processes run a windowed job with a keyed exchange (a repartition
# topic) into an exactly-once file sink each (its own folder), with a
# checkpoint every 200 ms. A seeded schedule kills one of them with
# SIGKILL at random moments (WEIR_CLUSTER_KILLS times, 12 by default) and
# starts it again at once, with the same index and folder; the others learn
# of it on the control topic and restart in the process (restart-strategy),
# and all of them go on from the last checkpoint complete on every one.
# Then: the union of the three sinks' committed files equals the
# single-process run and a Python model of the job
# (tests/cluster_crash_oracle.py): nothing lost, nothing twice.
# Seeded (WEIR_CLUSTER_CRASH_SEED replays a schedule).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_crash: SKIPPED (no weir-kafka-mock)"; exit 0
fi
SEED=${WEIR_CLUSTER_CRASH_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_CRASH_ROWS:-80000}
KILLS=${WEIR_CLUSTER_KILLS:-12}
# 40 s of input at the default: it must outlast 12 kills 1.2-2.7 s apart.
# A restart does not always make the input last longer: every restarted
# source subtask starts with a full token bucket (one second of rows), so
# quick restarts take the job through its input sooner; the job may end
# before the last kills on a slow machine, and three quarters of them
# must have happened.
RATE=${WEIR_CLUSTER_CRASH_RATE:-2000}
GAP=${WEIR_CLUSTER_KILL_GAP:-12} # tenths of a second, at least, between kills
RANDOM=$SEED
echo "test_cluster_crash: seed $SEED (WEIR_CLUSTER_CRASH_SEED), $ROWS rows at $RATE/s, $KILLS kills"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-crash
pids=(0 0 0)
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in p*/log single.log; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock crash-tumbling_window-2-repartition:3 crash-control:1

cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
cluster_window_job "" out > single.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

mkdir -p single
(cd single && TZ=UTC timeout 120 "$WEIR" run ../single.sql -D rest.enabled=false > /dev/null 2> ../single.log) ||
    fail "the single-process run"
cat single/out/part-* 2> /dev/null | sort > single.txt
diff want.txt single.txt > /dev/null || fail "the single-process run differs from the oracle"

# start I: process I of 3 in folder pI (the same folder when it comes back)
start() {
    local i=$1
    mkdir -p "p$i"
    (cd "p$i" && TZ=UTC exec "$WEIR" run ../job.sql -D rest.enabled=false -D pipeline.name=crash \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=3 \
        -D weir.cluster.process-index="$i" -D state.checkpoints.dir=ck \
        -D execution.checkpointing.interval=200ms \
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000 \
        -D restart-strategy.fixed-delay.delay=0ms >> out.log 2>> log) &
    pids[$i]=$!
}
# reap I: the process ended; it must have ended well
reap() {
    wait "${pids[$1]}" || fail "process $1 failed"
    pids[$1]=0
}

start 0; start 1; start 2
killed=0
t0=$SECONDS
while ((killed < KILLS)); do
    # GAP to GAP + 1.5 s (a restart of all takes about one), then one of the three
    sleep "$((RANDOM % 16 + GAP))e-1"
    v=$((RANDOM % 3))
    all_done=1
    for i in 0 1 2; do [ "${pids[$i]}" != 0 ] && cluster_alive "$i" && all_done=0; done
    ((all_done)) && break
    if [ "${pids[$v]}" != 0 ] && cluster_alive "$v"; then
        kill -9 "${pids[$v]}" 2> /dev/null
        wait "${pids[$v]}" 2> /dev/null
        echo "--- killed at $((SECONDS - t0)) s" >> "p$v/log"
        killed=$((killed + 1))
        start "$v"
    fi
    ((SECONDS - t0 > 240)) && fail "still running after 240 s ($killed kills)"
done
for i in 0 1 2; do
    cluster_ends 1800 "$i" || fail "process $i did not finish in 180 s after the last kill"
    reap "$i"
done
((killed * 4 >= KILLS * 3)) ||
    fail "the job ended after $killed of $KILLS kills (slow it down: WEIR_CLUSTER_CRASH_RATE)"
restarts=$(cat p*/log | grep -c "restarted: every process goes on")
restores=$(cat p*/log | grep -c "restoring from checkpoint")
cat p*/out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "3 processes with $killed kills differ from the model"
fi
echo "  $killed kills ($restarts restarts of the others, $restores restores of a checkpoint): $(wc -l < got.txt) windows, equal to one process and to the model"
cluster_views_checked "$T"
echo "test_cluster_crash: OK"
