#!/usr/bin/env bash
# tests/test_cluster_rescale_watermark.sh WEIR SOURCE_DIR - the watermark a
# window operator restores when an unbounded job run by two processes, one
# of which reads no repartition partition, is restored by one
# (docs/cluster.md, "Rescaling"), against librdkafka's mock cluster over
# TCP (weir-kafka-mock).
#
# With 1 repartition partition, process 1 reads none: its reader has no
# split and ends at once, so its window operator is at watermark +infinity
# (not at none) while process 0's is at the file's 10 s. The restore takes
# the smallest watermark of all old subtasks: 10 s, as an uninterrupted run
# has it. After the restore a row at 3 s of a new key (no restored window
# of its own) must give nothing, as the uninterrupted run drops it as late
# (its window ended at 4 s, before the watermark), while the open 10-second
# window (restored keyed state) fires when a row at 20 s moves the
# watermark past it; both would fire on that same watermark, so the test
# waits for the second only.
#
# Two things hold the late row back, each enough alone: the window
# operator's restored watermark, and the file source's, which announces
# the watermark its restored splits had reached before it reads a row of
# a new file. So a subtask that recorded no watermark (the minimum taken
# down to none) fails this test only where the source announces nothing
# either (seen with both broken on purpose); it guards the whole path of a
# rescale from a process that reads no partition.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_rescale_watermark: SKIPPED (no weir-kafka-mock)"; exit 0
fi
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-rwm
pids=(0 0)
fail() {
    echo "FAIL: $*"
    for f in "$T"/log.* "$T"/out.*; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock rwma-tumbling_window-2-repartition:1 rwma-control:1 \
    rwmb-tumbling_window-2-repartition:1 rwmb-control:1

cat > job.sql <<'SQL'
CREATE TABLE s (k BIGINT, t BIGINT, ts AS TO_TIMESTAMP_LTZ(t, 3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv',
  'source.monitor-interval' = '100ms');
CREATE TABLE o (k BIGINT, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT k, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
SQL

# start GROUP I N [ARGS...]: process I of N, its rows in out.GROUP.I
start() {
    local g=$1 i=$2 n=$3
    shift 3
    cluster_start "$g" job.sql "$i" "$n" -D pipeline.name=rwm -D weir.cluster.repartition-partitions=1 \
        -D execution.checkpointing.interval=1h -D state.checkpoints.dir=ck -D state.savepoints.dir="$T/sp" "$@"
}
alive() { kill -0 "${pids[$1]}" 2> /dev/null; }
# put NAME ROWS: a new file in the watched folder (written hidden, renamed)
put() { printf "$2" > "in/.$1"; mv "in/.$1" "in/$1"; }

mkdir in
# the windows of 1 s and 5 s fire at the watermark 10 s; that of 10 s stays open
put a.csv '1,1000\n1,5000\n1,10000\n'
start rwma 0 2; start rwma 1 2
for ((k = 0; k < 100; k++)); do [ "$(cat out.rwma.0 | wc -l)" -ge 2 ] && break; sleep 0.1; done
[ "$(cat out.rwma.0 | wc -l)" = 2 ] || fail "process 0 did not fire the windows of 1 s and 5 s"
[ -s out.rwma.1 ] && fail "process 1, which reads no partition, wrote rows"
for i in 0 1; do alive "$i" || fail "process $i ended before the savepoint"; done
sp=$(timeout 60 "$WEIR" savepoint "${pids[1]}" 2> sp.err) || fail "weir savepoint: $(cat sp.err)"
for i in 0 1; do kill -9 "${pids[$i]}"; wait "${pids[$i]}" 2> /dev/null; pids[$i]=0; done

start rwmb 0 1 --from "$sp"
# 3 s is late (its window ended at 4 s); 20 s fires the window of 10 s
put b.csv '2,3000\n1,20000\n'
for ((k = 0; k < 200; k++)); do grep -q ":10," out.rwmb.0 && break; alive 0 || break; sleep 0.1; done
grep -q "restoring savepoint" log.rwmb.0 || fail "the process did not restore the savepoint"
want='+I[1, 1970-01-01T00:00:10, 1]'
[ "$(cat out.rwmb.0)" = "$want" ] ||
    fail "after the restore: $(tr '\n' ' ' < out.rwmb.0), not only the window of 10 s (the late row at 3 s taken?)"
kill -9 "${pids[0]}"; wait "${pids[0]}" 2> /dev/null; pids[0]=0
echo "  2 processes (one reading no partition) -> savepoint -> 1 process: the late row stays dropped"
echo "test_cluster_rescale_watermark: OK"
