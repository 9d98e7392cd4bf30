#!/usr/bin/env bash
# bench/kafka_source_bench.sh [BUILD_DIR] - the Kafka source's throughput
# against kcat reading the same topic in the same run.
#
# A mock Kafka cluster (build/weir-kafka-mock) serves one topic of
# KAFKA_BENCH_PARTITIONS partitions (default 16) holding KAFKA_BENCH_MSGS
# (default 960,000) small JSON messages. (The mock keeps only about the
# last 100,000 messages of a partition: keep MSGS / PARTITIONS below that;
# the script checks that the job read every message.) Then, KAFKA_BENCH_RUNS times
# (default 3), alternating:
#   weir: SELECT * into a blackhole sink, bounded at the latest offsets,
#         parallelism 1 (one consumer, decoding every message);
#   kcat: kcat -C -e -q -o beginning, every partition, output to /dev/null
#         (one consumer, no decoding: a floor on the client's own cost).
# Reported: wall time and CPU time (user + sys) of each process, and
# events/s per core = messages / CPU seconds; the median of the runs.
# The mock broker runs on the same machine and its CPU is not counted.
set -u
BUILD=${1:-build}
WEIR=$(cd "$BUILD" && pwd)/weir
MOCK=$(cd "$BUILD" && pwd)/weir-kafka-mock
MSGS=${KAFKA_BENCH_MSGS:-960000}
PARTS=${KAFKA_BENCH_PARTITIONS:-16}
RUNS=${KAFKA_BENCH_RUNS:-3}
T=$(mktemp -d /tmp/weir-kafka-bench-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
"$MOCK" -f boot "bench:$PARTS" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
B=$(cat boot)
for ((p = 0; p < PARTS; p++)); do
    awk -v n="$((MSGS / PARTS))" -v p="$p" 'BEGIN { srand(p); for (i = 0; i < n; i++)
        printf "{\"user\":\"u%d\",\"amount\":%d,\"ts_ms\":%d}\n", int(rand() * 1000), int(rand() * 10000), 1700000000000 + i }' |
        kcat -P -b "$B" -t bench -p "$p" -X queue.buffering.max.messages=1000000 || exit 1
done
cat > job.sql <<EOF
CREATE TABLE src (user STRING, amount BIGINT, ts_ms BIGINT) WITH ('connector' = 'kafka', 'topic' = 'bench',
  'properties.bootstrap.servers' = '$B', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (user STRING, amount BIGINT, ts_ms BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT * FROM src;
EOF
# Check first that the job reads every message.
sed 's/INSERT INTO dst SELECT \* FROM src;//' job.sql > count.sql
echo "CREATE TABLE cnt (n BIGINT) WITH ('connector' = 'print');
INSERT INTO cnt SELECT COUNT(*) FROM src;" >> count.sql
n=$("$WEIR" run count.sql 2> /dev/null | tail -1)
[ "$n" = "+U[$MSGS]" ] || [ "$n" = "+I[$MSGS]" ] || { echo "the job read '$n', not $MSGS messages"; exit 1; }
measure() { # prints "wall cpu"
    /usr/bin/time -f "%e %U %S" -o t.txt "$@" > /dev/null 2> err.txt || { cat err.txt; exit 1; }
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' t.txt
}
: > weir.txt
: > kcat.txt
for ((r = 0; r < RUNS; r++)); do
    measure "$WEIR" run job.sql -D parallelism.default=1 >> weir.txt
    measure kcat -C -b "$B" -t bench -e -q -o beginning >> kcat.txt
done
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
report() { # $1: name, $2: file
    local wall cpu
    wall=$(awk '{ print $1 }' "$2" | median)
    cpu=$(awk '{ print $2 }' "$2" | median)
    awk -v n="$MSGS" -v w="$wall" -v c="$cpu" -v name="$1" 'BEGIN {
        printf "%-5s wall %6.2f s  cpu %6.2f s  %9.0f events/s  %9.0f events/s per core\n",
            name, w, c, n / w, n / c }'
}
echo "kafka source bench: $MSGS messages, $PARTS partitions, median of $RUNS runs (machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
report weir weir.txt
report kcat kcat.txt
