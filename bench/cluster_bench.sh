#!/usr/bin/env bash
# bench/cluster_bench.sh [BUILD_DIR] - throughput of a synthetic window job
# (datagen -> keyed exchange -> 1 s tumbling COUNT/SUM per key -> blackhole)
# run by 1, 2 and 4 weir processes over librdkafka's mock cluster
# (weir-kafka-mock, one broker process on this machine), and the cost of the
# repartition topic against the in-process exchange (one process, without
# and with weir.cluster.*), and of checkpoints across the processes (every
# CKPT_MS, default 1000: barriers through the repartition topics, a control
# topic, each process's part written to a local folder).
#   ROWS (default 2000000), KEYS (1000), RUNS (3: the median is printed).
# Every process is started at once; the time is from the first start to the
# last exit. The mock cluster is one process with the whole log in memory,
# so the figures measure weir's side and the loopback, not a real broker.
# It keeps about 5 MB per partition and deletes older records (a reader
# that falls behind fails, naming the deleted offsets), so the repartition
# topics have 8 partitions and ROWS stays near 1 000 000.
set -u
BUILD=$(cd "${1:-build}" && pwd)
WEIR=$BUILD/weir
MOCK=$BUILD/weir-kafka-mock
ROWS=${ROWS:-1000000}
KEYS=${KEYS:-1000}
RUNS=${RUNS:-3}
CKPT_MS=${CKPT_MS:-1000}
T=$(mktemp -d /tmp/weir-cluster-bench-XXXXXX)
MOCK_PID=
cleanup() { [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
cat > job.sql <<EOF
CREATE TABLE src (id BIGINT, k BIGINT, v BIGINT, ts AS TO_TIMESTAMP_LTZ(id, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))',
  'fields.k.min' = '0', 'fields.k.max' = '$((KEYS - 1))', 'fields.v.min' = '0', 'fields.v.max' = '100');
CREATE TABLE dst (k BIGINT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
TOPICS=()
for run in $(seq 1 "$RUNS"); do
    for n in 1 2 4; do
        TOPICS+=("b$n-$run-tumbling_window-2-repartition:8" "c$n-$run-tumbling_window-2-repartition:8"
            "c$n-$run-control:1")
    done
done
"$MOCK" -f boot "${TOPICS[@]}" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
B=$(cat boot)

now() { date +%s.%N; }
# one_run N RUN [c]: seconds for N processes (N = 0: one process, no
# cluster; c: with checkpoints across the processes)
one_run() {
    local n=$1 run=$2 c=${3:-b} t0 pids=() ck=()
    [ "$c" = c ] && ck=(-D state.checkpoints.dir="$T/ck-$n-$run" -D execution.checkpointing.interval="${CKPT_MS}ms")
    t0=$(now)
    if [ "$n" = 0 ]; then
        "$WEIR" run job.sql -D rest.enabled=false > /dev/null 2> log0 || { tail log0 >&2; exit 1; }
    else
        for ((i = 0; i < n; i++)); do
            "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name="$c$n-$run" "${ck[@]}" \
                -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes="$n" \
                -D weir.cluster.process-index=$i -D weir.cluster.repartition-partitions=8 \
                > /dev/null 2> "log$i" &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p" || { tail log* >&2; exit 1; }; done
    fi
    echo "$(now) - $t0" | bc
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "cluster_bench: $ROWS rows, $KEYS keys, median of $RUNS runs, $(nproc) cores"
printf '%-36s %10s %12s\n' "setup" "seconds" "rows/s"
for n in 0 1 2 4; do
    s=$(for run in $(seq 1 "$RUNS"); do one_run $n "$run"; done | median)
    name=$([ $n = 0 ] && echo "1 process, in-process exchange" || echo "$n process(es), repartition topic")
    printf '%-36s %10.2f %12.0f\n' "$name" "$s" "$(echo "$ROWS / $s" | bc -l)"
done
for n in 1 2 4; do
    s=$(for run in $(seq 1 "$RUNS"); do one_run $n "$run" c; done | median)
    printf '%-36s %10.2f %12.0f\n' "$n process(es), checkpoint/${CKPT_MS}ms" "$s" "$(echo "$ROWS / $s" | bc -l)"
done
