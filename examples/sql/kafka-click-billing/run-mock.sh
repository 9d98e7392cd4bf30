#!/usr/bin/env bash
# examples/sql/kafka-click-billing/run-mock.sh [WEIR] - runs job.sql against
# weir-kafka-mock (librdkafka's mock cluster, built next to weir): creates
# the topics, produces the clicks of ../click-billing/clicks.json with kcat
# (all to partition 0, but the first three to partition 1, which then goes
# silent), runs the job for RUN_SECONDS (default 30) and prints the bills.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
WEIR=$(cd "$(dirname "${1:-$HERE/../../../build/weir}")" && pwd)/$(basename "${1:-weir}")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
W=$(mktemp -d /tmp/weir-kafka-example-XXXXXX)
cleanup() { set +e; [ -n "${JOB:-}" ] && kill "$JOB" 2> /dev/null; [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; wait 2> /dev/null; rm -rf "$W"; }
trap cleanup EXIT
cd "$W"
"$MOCK" -f bootstrap clicks:2 bills:1 > mock.log 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s bootstrap ] && break; sleep 0.1; done
BS=$(cat bootstrap)
CLICKS=$HERE/../click-billing/clicks.json
head -n 3 "$CLICKS" | kcat -b "$BS" -P -t clicks -p 1
tail -n +4 "$CLICKS" | kcat -b "$BS" -P -t clicks -p 0
sed "s/localhost:9092/$BS/" "$HERE/job.sql" > job.sql
"$WEIR" run job.sql > weir.out 2> weir.err &
JOB=$!
sleep "${RUN_SECONDS:-30}"
if ! kill -0 "$JOB" 2> /dev/null && grep -q "as a source" weir.err; then
    cat weir.err
    echo "this weir has no Kafka source yet: the example needs it" >&2
    exit 2
fi
kill -TERM "$JOB" 2> /dev/null || true # a clean stop: the final checkpoint commits
wait "$JOB" 2> /dev/null || true
JOB=
kcat -b "$BS" -C -t bills -e -q -f '%k %s\n' -X isolation.level=read_committed
