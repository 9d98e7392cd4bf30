#!/usr/bin/env bash
# tests/test_cluster_one_process.sh WEIR SOURCE_DIR - a checkpoint of a job
# run by two processes restored by one (weir.cluster.processes=1, docs/
# cluster.md "Rescaling"), against librdkafka's mock cluster over TCP
# (weir-kafka-mock).
#
# The windowed job of the crash and rescale tests (tests/support/cluster.sh)
# at parallelism 2 in each process, over a repartition topic of 2
# partitions: both are read by process 0 (partition r goes to process
# (r mod 4) / 2), so process 1's window subtasks have no input and stand
# at the end of it. Both processes are killed after a checkpoint completed;
# one process goes on from it alone, to the end: its output equals the
# Python model (tests/cluster_crash_oracle.py). The window operator's
# restored watermark is the smallest of ALL old subtasks' in a cluster job,
# one process included: by the key-group ranges of their indexes (as in a
# job that never ran in several processes) subtask 1 took only process 1's,
# +infinity, and dropped every row as late.
# WEIR_CLUSTER_ONE_ROWS and _RATE size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_one_process: SKIPPED (no weir-kafka-mock)"; exit 0
fi
ROWS=${WEIR_CLUSTER_ONE_ROWS:-20000}
RATE=${WEIR_CLUSTER_ONE_RATE:-5000}
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-one
pids=(0 0)
fail() {
    echo "FAIL: $*"
    for f in log.*; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock one-tumbling_window-2-repartition:2 one-control:1
cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

# start I N: process I of N, parallelism 2 in each
start() {
    cluster_start one job.sql "$1" "$2" -D pipeline.name=one -D weir.cluster.repartition-partitions=2 \
        -D parallelism.default=2 -D state.checkpoints.dir=ck -D execution.checkpointing.interval=200ms
}
start 0 2; start 1 2
# a checkpoint completed across both processes (its files committed)
cluster_until 600 compgen -G "out/part-*" > /dev/null || fail "no checkpoint completed in 60 s"
kill -9 "${pids[0]}" "${pids[1]}"
wait "${pids[0]}" "${pids[1]}" 2> /dev/null
pids=(0 0)
start 0 1
wait "${pids[0]}" || fail "the one process failed"
pids[0]=0
grep -q "restoring from checkpoint ck/process-1/" log.one.0 || fail "the one process did not restore process 1's part"
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "2 processes -> 1 differs from the model"
fi
echo "  2 processes -> 1 (parallelism 2): $(wc -l < got.txt) windows, equal to the model"
echo "test_cluster_one_process: OK"
