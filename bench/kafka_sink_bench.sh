#!/usr/bin/env bash
# bench/kafka_sink_bench.sh [WEIR] [ROWS] - the Kafka sink's throughput into
# weir-kafka-mock, against kcat -P writing the same lines in the same run:
# a CSV file of ROWS rows (default 1 000 000) -> 'kafka' sink (csv values,
# no key, one partition), under each delivery guarantee; then the file's
# lines produced by kcat. Prints rows/s for each. The mock runs on the same
# machine, so both share its cost; the figure compares weir's sink path
# (decode, encode, produce, checkpoint flushes) with a plain producer.
set -eu
WEIR=$(cd "$(dirname "${1:-build/weir}")" && pwd)/$(basename "${1:-build/weir}")
ROWS=${2:-1000000}
MOCK=$(dirname "$WEIR")/weir-kafka-mock
T=$(mktemp -d /tmp/weir-kafka-bench-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; wait 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T"
"$MOCK" -f bootstrap t_none:1 t_alo:1 t_eo:1 t_kcat:1 > mock.log 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s bootstrap ] && break; sleep 0.1; done
BS=$(cat bootstrap)
awk -v n="$ROWS" 'BEGIN { for (i = 0; i < n; i++) printf "user%d,%d,%d\n", i % 1000, i, 1700000000000 + i }' > in.csv
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
count() { kcat -b "$BS" -Q -t "$1:0:-1" 2> /dev/null | awk '{ print $NF }'; }
echo "rows: $ROWS"
for g in none at-least-once exactly-once; do
    t=t_${g%%-*}; [ "$g" = exactly-once ] && t=t_eo; [ "$g" = at-least-once ] && t=t_alo
    cat > job.sql <<SQL
CREATE TABLE src (u STRING, v BIGINT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (u STRING, v BIGINT, ts BIGINT) WITH ('connector' = 'kafka', 'properties.bootstrap.servers' = '$BS',
  'topic' = '$t', 'format' = 'csv', 'sink.delivery-guarantee' = '$g', 'sink.transactional-id-prefix' = 'bench',
  'properties.linger.ms' = '5');
INSERT INTO o SELECT * FROM src;
SQL
    s=$(now_ms)
    "$WEIR" run job.sql -D execution.checkpointing.interval=1s -D state.checkpoints.dir=ck-$g > /dev/null
    e=$(now_ms)
    printf "weir kafka sink %-14s %8d ms  %10d rows/s\n" "$g" $((e - s)) $((ROWS * 1000 / (e - s > 0 ? e - s : 1)))
done
s=$(now_ms)
kcat -b "$BS" -P -t t_kcat -X linger.ms=5 < in.csv # one message per line
e=$(now_ms)
printf "kcat -P                        %8d ms  %10d rows/s\n" $((e - s)) $((ROWS * 1000 / (e - s > 0 ? e - s : 1)))
