#!/usr/bin/env bash
# tests/test_cluster_rescale_savepoint.sh WEIR SOURCE_DIR - a savepoint of
# a job run by two processes at parallelism 2, taken while it runs and
# with nothing
# committed yet, restored by one (docs/cluster.md, "Savepoints" and
# "Rescaling"), against librdkafka's mock cluster over TCP
# (weir-kafka-mock).
#
# The processes take no checkpoint (an interval of an hour),
# so their exactly-once file sink commits nothing before the savepoint, and
# an intermediate savepoint commits nothing either: every row before its cut
# sits in the pending files of the sink subtasks' operator state, and every
# open window in keyed state. Both processes are killed after it, and one
# process at parallelism 1 restores it over 4 repartition partitions (each
# old process read two, one a subtask): its key groups come from both old
# processes (partition r was process (r mod 4) / 2's), its sink subtask
# adopts the pending files of old subtasks 1 to 3 along with its own (the
# job's subtasks go from 4 to 1), and the source splits are found in
# either part. The committed files must equal the Python model of the job
# (tests/cluster_crash_oracle.py): a key group, a split or a pending file
# taken from the wrong old process, or from none, loses rows or repeats
# them - every time, not only when a kill meets an uncommitted checkpoint.
# WEIR_CLUSTER_RSP_ROWS and _RATE size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_rescale_savepoint: SKIPPED (no weir-kafka-mock)"; exit 0
fi
ROWS=${WEIR_CLUSTER_RSP_ROWS:-48000}
RATE=${WEIR_CLUSTER_RSP_RATE:-6000}
echo "test_cluster_rescale_savepoint: $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-rsp
pids=(0 0)
fail() {
    echo "FAIL: $*"
    for f in "$T"/log.*; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock rspa-tumbling_window-2-repartition:4 rspa-control:1 \
    rspb-tumbling_window-2-repartition:4 rspb-control:1

cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
cluster_window_job "" out > fast.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

# start GROUP SQL I N P INTERVAL [ARGS...]: process I of N at parallelism
# P, checkpoints every INTERVAL
start() {
    local g=$1 sql=$2 i=$3 n=$4 p=$5 every=$6
    shift 6
    cluster_start "$g" "$sql" "$i" "$n" -D pipeline.name=rsp -D parallelism.default="$p" \
        -D weir.cluster.repartition-partitions=4 -D execution.checkpointing.interval="$every" \
        -D state.checkpoints.dir=ck -D state.savepoints.dir="$T/sp" "$@"
}
alive() { kill -0 "${pids[$1]}" 2> /dev/null; }

# (checkpoints enabled, as savepoints need, but none due before the kill)
start rspa job.sql 0 2 2 1h; start rspa job.sql 1 2 2 1h
# mid-run: the windows of a few hundred milliseconds of input are open
for ((k = 0; k < 100; k++)); do compgen -G "out/.part-*" > /dev/null && break; sleep 0.1; done
sleep 0.5
for i in 0 1; do alive "$i" || fail "process $i ended before the savepoint"; done
sp=$(timeout 60 "$WEIR" savepoint "${pids[1]}" 2> sp.err) || fail "weir savepoint: $(cat sp.err)"
for i in 0 1; do
    alive "$i" || fail "process $i ended before the kill"
    kill -9 "${pids[$i]}"; wait "${pids[$i]}" 2> /dev/null; pids[$i]=0
done
compgen -G "out/part-*" > /dev/null && fail "files were committed before the savepoint's restore"
compgen -G "out/.part-*-3-*" > /dev/null || fail "subtask 3 left no pending file to adopt"

# (its final checkpoint commits the output)
start rspb fast.sql 0 1 1 100ms --from "$sp"
for ((k = 0; k < 1200; k++)); do alive 0 || break; sleep 0.1; done
alive 0 && fail "the restored process did not finish in 120 s"
wait "${pids[0]}" || fail "the restored process failed"
pids[0]=0
grep -q "restoring savepoint" log.rspb.0 || fail "the process did not restore the savepoint"
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "2 processes x 2 -> savepoint -> 1 process x 1 differs from the model"
fi
echo "  2 processes x 2 -> savepoint -> 1 process x 1: $(wc -l < got.txt) windows, equal to the model"
echo "test_cluster_rescale_savepoint: OK"
