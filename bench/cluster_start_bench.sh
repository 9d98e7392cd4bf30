#!/usr/bin/env bash
# bench/cluster_start_bench.sh [BUILD_DIR] - how long a process takes to
# join a job whose control topic has a long history (docs/cluster.md, "A
# start reads from the last summary").
#
# Two processes without an index (automatic membership) run an unbounded
# job with checkpoints every CKPT_MS (default 60000: no summary of a
# completed checkpoint meanwhile) and heartbeats every HB_MS (5) ms, for
# FILL seconds (default 20: some 8 000 HEARTBEAT records in the control
# topic, under the mock cluster's 5 MB per partition). Then a third process
# starts; the time printed is from its start to its log line "process 2 of
# 3 at epoch" (it read the log, asked for a place, read its record back).
# RUNS (3) times, each on a fresh mock cluster: the median is printed.
set -u
BUILD=$(cd "${1:-build}" && pwd)
WEIR=$BUILD/weir
MOCK=$BUILD/weir-kafka-mock
FILL=${FILL:-20}
HB_MS=${HB_MS:-5}
RUNS=${RUNS:-3}
CKPT_MS=${CKPT_MS:-60000}
T=$(mktemp -d /tmp/weir-cluster-start-bench-XXXXXX)
MOCK_PID= pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
    [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2> /dev/null
    [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
cat > job.sql <<EOF
CREATE TABLE src (id BIGINT, k BIGINT, ts AS TO_TIMESTAMP_LTZ(id, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'rows-per-second' = '100',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '100000000',
  'fields.k.min' = '0', 'fields.k.max' = '9');
CREATE TABLE dst (k BIGINT, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
now() { date +%s.%N; }
one_run() {
    local run=$1 i t0
    rm -f boot
    "$MOCK" -f boot "s$run-tumbling_window-2-repartition:4" "s$run-control:1" > mock.log 2>&1 &
    MOCK_PID=$!
    for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
    local B
    B=$(cat boot)
    start() {
        "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name="s$run" \
            -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=2 \
            -D weir.cluster.repartition-partitions=4 \
            -D weir.cluster.heartbeat-interval="${HB_MS}ms" -D weir.cluster.session-timeout=60s \
            -D state.checkpoints.dir="$T/ck$run" -D execution.checkpointing.interval="${CKPT_MS}ms" \
            -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=100 \
            -D restart-strategy.fixed-delay.delay=0ms > /dev/null 2> "log$run.$1" &
        pids+=($!)
    }
    start 0
    start 1
    sleep "$FILL"
    t0=$(now)
    start 2
    for ((i = 0; i < 1200; i++)); do
        grep -q "process 2 of 3 at epoch" "log$run.2" 2> /dev/null && break
        sleep 0.05
    done
    grep -q "process 2 of 3 at epoch" "log$run.2" || { tail -5 "log$run.2" >&2; exit 1; }
    echo "$(now) - $t0" | bc
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
    pids=()
    kill "$MOCK_PID" 2> /dev/null
    wait "$MOCK_PID" 2> /dev/null
    MOCK_PID=
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
s=$(for run in $(seq 1 "$RUNS"); do one_run "$run"; done | median)
echo "cluster_start_bench: a third process joins after ${FILL} s of heartbeats every ${HB_MS} ms from two: $s s (median of $RUNS)"
