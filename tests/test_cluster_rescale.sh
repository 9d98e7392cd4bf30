#!/usr/bin/env bash
# tests/test_cluster_rescale.sh WEIR SOURCE_DIR - a job run by several
# processes goes on over another number of them (docs/cluster.md,
# "Rescaling"), against librdkafka's mock cluster over TCP (weir-kafka-mock).
#
# Three processes run a windowed job with a keyed exchange (a repartition
# topic of 8 partitions) into one exactly-once file sink folder they share,
# with a checkpoint every 200 ms into one shared checkpoint folder. Mid-run
# a fourth process starts with weir.cluster.processes=4: every process
# restores the last complete checkpoint over four (key groups, operator
# state and source splits dealt out again). Later process 0 is killed and
# started again with weir.cluster.processes=3: the job goes back to three,
# and process 3, which no longer has a place, ends (status 0). Then: the
# committed files equal the single-process run and a Python model of the
# job (tests/cluster_crash_oracle.py): nothing lost, nothing twice.
# WEIR_CLUSTER_RESCALE_ROWS and _RATE size it; the moments are seeded
# (WEIR_CLUSTER_RESCALE_SEED replays them).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_rescale: SKIPPED (no weir-kafka-mock)"; exit 0
fi
SEED=${WEIR_CLUSTER_RESCALE_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_RESCALE_ROWS:-60000}
RATE=${WEIR_CLUSTER_RESCALE_RATE:-6000}
RANDOM=$SEED
echo "test_cluster_rescale: seed $SEED (WEIR_CLUSTER_RESCALE_SEED), $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-rescale
pids=(0 0 0 0)
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in log.* single.log; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock rescale-tumbling_window-2-repartition:8 rescale-control:1

cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
cluster_window_job "" single > single.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

TZ=UTC timeout 120 "$WEIR" run single.sql -D rest.enabled=false > /dev/null 2> single.log ||
    fail "the single-process run"
cat single/part-* 2> /dev/null | sort > single.txt
diff want.txt single.txt > /dev/null || fail "the single-process run differs from the oracle"

# start I N: process I asking for N processes; all share the folders
start() {
    cluster_start rescale job.sql "$1" "$2" -D pipeline.name=rescale -D weir.cluster.repartition-partitions=8 \
        -D state.checkpoints.dir=ck -D execution.checkpointing.interval=200ms \
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000 \
        -D restart-strategy.fixed-delay.delay=0ms
}
# the processes of the list are all still running
running() { for i in "$@"; do cluster_alive "$i" || fail "process $i ended before the rescale"; done; }
# until TEXT is in the log of process I (or 30 s)
await() {
    cluster_until 300 grep -q "$2" "log.rescale.$1" 2> /dev/null || fail "log.rescale.$1 never said '$2'"
}

start 0 3; start 1 3; start 2 3
# the rescale comes after a checkpoint has completed across the processes
# (its files committed), so that four processes restore it rather than
# start over: a checkpoint folder alone can be one still being written
cluster_until 600 compgen -G "out/part-*" > /dev/null || fail "no checkpoint completed in 60 s"
sleep "$((RANDOM % 6 + 10))e-1"
running 0 1 2
start 3 4 # a fourth process joins
await 1 "asked for 4 processes"
await 3 "restoring from checkpoint"
sleep "$((RANDOM % 6 + 10))e-1"
running 0 1 2 3
# back to three: process 0 comes back asking for three; process 3 leaves
kill -9 "${pids[0]}"; wait "${pids[0]}" 2> /dev/null
start 0 3
cluster_ends 300 3 || fail "process 3 did not leave the job in 30 s"
wait "${pids[3]}" || fail "process 3 failed instead of leaving"
pids[3]=0
grep -q "process 3 left the job: it runs on 3 processes" log.rescale.3 || fail "process 3 did not say it left"
cluster_finish 0 1 2
grep -q "asked for 3 processes instead of 4" log.rescale.1 || fail "process 1 did not go back to three"
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "3 -> 4 -> 3 processes differ from the model"
fi
# Hidden files may stay only of subtask 3, which left: process 0, which
# adopted its state, deletes them again at its first completed checkpoint
# after the rescale, but a file the leaving process opens later still
# stays (docs/cluster.md).
left=$(ls -a out | grep inprogress | grep -v -- '-3-[0-9]*\.csv\.inprogress$')
[ -z "$left" ] || fail "hidden files left in the sink folder: $(echo "$left" | head -3)"
echo "  3 -> 4 -> 3 processes: $(wc -l < got.txt) windows, equal to one process and to the model"
cluster_views_checked "$T"
echo "test_cluster_rescale: OK"
