#!/usr/bin/env bash
# tests/test_cluster_rescale_timers.sh WEIR SOURCE_DIR - a savepoint of a
# job run by two processes at parallelism 2 whose keyed operator waits on
# event-time timers, restored by one (docs/cluster.md, "Rescaling"),
# against librdkafka's mock cluster over TCP (weir-kafka-mock).
#
# The job is a running COUNT(*) OVER (PARTITION BY k ORDER BY ts): a row
# waits in keyed state, with an event-time timer at its time + 1 ms, until
# the watermark (1 second behind) passes it, and only that timer emits it.
# The savepoint is taken while rows flow, so every key group holds rows
# under pending timers; both processes are killed, and one process at
# parallelism 1 restores it: the key groups of old process 1 move to it. A
# key group restored without its timers never emits its waiting rows
# (later timers emit only the rows of their own time), so every row must
# come out once with its count (an inline Python model).
#
# With 8 repartition partitions every one of the 4 old sink subtasks
# (process i, subtask s: partition r goes to process (r mod 4) / 2, and
# within it to the subtask of its key-group range) holds pending files at
# the savepoint (checked), all adopted by the one new subtask: an old
# subtask's operator state read from the wrong slot of its process's part
# loses rows too. (With 4 partitions only subtasks 0 and 3 get rows, which
# hides such a mix-up.) WEIR_CLUSTER_RTM_ROWS and _RATE size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_rescale_timers: SKIPPED (no weir-kafka-mock)"; exit 0
fi
ROWS=${WEIR_CLUSTER_RTM_ROWS:-48000}
RATE=${WEIR_CLUSTER_RTM_RATE:-6000}
echo "test_cluster_rescale_timers: $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-rtm
pids=(0 0)
fail() {
    echo "FAIL: $*"
    for f in "$T"/log.*; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock rtma-OverAggregate-1-repartition:8 rtma-control:1 \
    rtmb-OverAggregate-1-repartition:8 rtmb-control:1

# over_job SOURCE-OPTIONS: the job, into out/
over_job() {
    cat <<SQL
CREATE TABLE g (id BIGINT, k AS MOD(id * 7919, 41),
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 7, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS', $1
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (k BIGINT, id BIGINT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT k, id,
  COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
FROM g;
SQL
}
over_job "'rows-per-second' = '$RATE'," > job.sql
over_job "" > fast.sql
# row g (event time growing with g) is the n-th of its key k = g * 7919 mod 41
python3 - "$ROWS" > want.txt <<'PY' || fail "the model"
import sys
seen = {}
for g in range(int(sys.argv[1])):
    k = g * 7919 % 41
    seen[k] = seen.get(k, 0) + 1
    print("%d,%d,%d" % (k, g, seen[k]))
PY
sort want.txt -o want.txt

# start GROUP SQL I N P [ARGS...]: process I of N at parallelism P, with a
# checkpoint interval of an hour (savepoints need checkpoints; none is due
# before the kill, so nothing is committed before the savepoint)
start() {
    local g=$1 sql=$2 i=$3 n=$4 p=$5
    shift 5
    cluster_start "$g" "$sql" "$i" "$n" -D pipeline.name=rtm -D parallelism.default="$p" \
        -D weir.cluster.repartition-partitions=8 -D execution.checkpointing.interval=1h \
        -D state.checkpoints.dir=ck -D state.savepoints.dir="$T/sp" "$@"
}
alive() { kill -0 "${pids[$1]}" 2> /dev/null; }

start rtma job.sql 0 2 2; start rtma job.sql 1 2 2
# mid-run: every sink subtask has rows in a pending file
for ((k = 0; k < 100; k++)); do
    n=0
    for s in 0 1 2 3; do compgen -G "out/.part-*-$s-*" > /dev/null && n=$((n + 1)); done
    [ "$n" = 4 ] && break
    sleep 0.1
done
[ "$n" = 4 ] || fail "only $n of the 4 sink subtasks wrote a pending file"
for i in 0 1; do alive "$i" || fail "process $i ended before the savepoint"; done
sp=$(timeout 60 "$WEIR" savepoint "${pids[1]}" 2> sp.err) || fail "weir savepoint: $(cat sp.err)"
for i in 0 1; do
    alive "$i" || fail "process $i ended before the kill"
    kill -9 "${pids[$i]}"; wait "${pids[$i]}" 2> /dev/null; pids[$i]=0
done
compgen -G "out/part-*" > /dev/null && fail "files were committed before the savepoint's restore"

# (its final checkpoint commits the output)
start rtmb fast.sql 0 1 1 -D execution.checkpointing.interval=100ms --from "$sp"
for ((k = 0; k < 1200; k++)); do alive 0 || break; sleep 0.1; done
alive 0 && fail "the restored process did not finish in 120 s"
wait "${pids[0]}" || fail "the restored process failed"
pids[0]=0
grep -q "restoring savepoint" log.rtmb.0 || fail "the process did not restore the savepoint"
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "2 processes x 2 -> savepoint -> 1 process x 1 differs from the model"
fi
echo "  2 processes x 2 -> savepoint -> 1 process x 1: $(wc -l < got.txt) rows, equal to the model"
echo "test_cluster_rescale_timers: OK"
