#!/usr/bin/env bash
# bench/kafka_latency_bench.sh [BUILD_DIR] - end-to-end latency of a
# windowed job on Kafka: produce -> result row visible.
#
# A mock Kafka cluster (build/weir-kafka-mock) serves topic `in` with
# LAT_PARTITIONS partitions (default 8). A paced producer (python3 writing
# to kcat -P) sends LAT_RATE events/s (default 100,000) for LAT_SECONDS
# (default 40): every millisecond it sends the events due by then, each
# stamped with its produce time `ts_ms` (wall clock, ms) as event time.
# The job: TUMBLE windows of LAT_WINDOW_MS (default 1000) over ts_ms,
# WATERMARK ts - LAT_DELAY_MS (default 0), COUNT(*) and SUM(v) per window,
# into a print sink whose stdout a reader stamps (wall clock) line by line.
#
# Latency of a window = the time its result row is visible (read from the
# sink's output) - the window's end in wall-clock time. Since event time is
# produce time, the window end is when the first record that can close the
# window (ts >= end + delay; with delay 0, any record at or after the end)
# is produced, minus the delay: the figure is produce -> visible for the
# record that closes the window, plus the delay. It includes the
# producer's batching (kcat's linger, 5 ms by default), the broker, the
# consumer's fetch, the watermark (the minimum over all partitions: the
# slowest partition's record closes the window), the window firing and the
# sink's write. The first LAT_WARMUP windows (default 3) are left out.
# Reported: p50, p99 and max over the windows, the windows' mean row count
# against the rate (a job that falls behind shows it there and in a
# growing latency), and the producer's achieved rate.
set -u
BUILD=${1:-build}
WEIR=$(cd "$BUILD" && pwd)/weir
MOCK=$(cd "$BUILD" && pwd)/weir-kafka-mock
RATE=${LAT_RATE:-100000}
SECS=${LAT_SECONDS:-40}
PARTS=${LAT_PARTITIONS:-8}
WIN=${LAT_WINDOW_MS:-1000}
DELAY=${LAT_DELAY_MS:-0}
WARMUP=${LAT_WARMUP:-3}
PAR=${LAT_PARALLELISM:-1}
# extra WITH options of the source, e.g. "'properties.fetch.wait.max.ms' = '10',"
PROPS=${LAT_SOURCE_OPTIONS:-}
T=$(mktemp -d /tmp/weir-kafka-lat-XXXXXX)
cleanup() {
    [ -n "${JOB_PID:-}" ] && kill "$JOB_PID" 2> /dev/null
    [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
"$MOCK" -f boot "in:$PARTS" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || { echo "the mock cluster did not start"; exit 1; }
B=$(cat boot)
cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '$DELAY' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '$B', $PROPS
  'scan.startup.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (we TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '$WIN' MILLISECOND))
GROUP BY window_start, window_end;
EOF
# The reader stamps each result line as it arrives.
mkfifo rows
python3 -u - rows > stamped.txt <<'PY' &
import sys, time
with open(sys.argv[1], "r") as f:
    for line in f:
        print("%.3f %s" % (time.time() * 1000, line.strip()), flush=True)
PY
READER_PID=$!
"$WEIR" run job.sql -D parallelism.default="$PAR" > rows 2> job.log &
JOB_PID=$!
# The source starts at the latest offsets: give it time to find them.
sleep 2
python3 - "$RATE" "$SECS" 2> producer.log <<'PY' | kcat -P -b "$B" -t in -X queue.buffering.max.messages=2000000 2> kcat.log
import sys, time
rate, secs = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
prefixes = ['{"k":"k%d","v":%d,"ts_ms":' % (i % 100, i) for i in range(1000)]
t0 = time.time()
sent = 0
end = t0 + secs
while True:
    now = time.time()
    if now >= end:
        break
    due = int((now - t0) * rate)
    while due > sent:
        # prefixes cycle through 1000 (key, value) pairs; the suffix carries
        # the produce time (joined in C: the pacer keeps up with the rate)
        a = sent % 1000
        b = min(1000, a + (due - sent))
        suffix = '%d}\n' % int(now * 1000)
        out.write(suffix.join(prefixes[a:b]) + suffix)
        sent += b - a
    out.flush()
    time.sleep(0.0005)
el = time.time() - t0
sys.stderr.write("producer: %d events in %.2f s = %.0f events/s\n" % (sent, el, sent / el))
PY
# Let the last windows fire (the watermark needs one more record per
# partition past them; the tail is left out below).
sleep $(( (WIN + DELAY) / 1000 + 2 ))
kill "$JOB_PID" 2> /dev/null
wait "$JOB_PID" 2> /dev/null
JOB_PID=
wait "$READER_PID" 2> /dev/null
python3 - "$WARMUP" "$RATE" "$WIN" "$DELAY" stamped.txt <<'PY' || { head -3 stamped.txt; tail -5 job.log; }
import sys, re, datetime
warm, rate, win, delay = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = []
for line in open(sys.argv[5]):
    m = re.match(r"([0-9.]+) (?:\d+> )?\+I\[([0-9T:.-]+)Z?, (\d+), (-?\d+)\]", line)
    if m:
        d = datetime.datetime.fromisoformat(m.group(2)).replace(tzinfo=datetime.timezone.utc)
        rows.append((float(m.group(1)), int(d.timestamp() * 1000 + 0.5), int(m.group(3))))
rows.sort(key=lambda r: r[1])
rows = rows[warm:-1] if len(rows) > warm + 1 else []
if not rows:
    print("no windows measured"); sys.exit(1)
lat = sorted(t - we for t, we, _ in rows)
def pct(p):
    return lat[min(len(lat) - 1, int(p / 100.0 * len(lat)))]
mean = sum(c for _, _, c in rows) / len(rows)
print("windows %d ms, delay %d ms: %d windows measured" % (win, delay, len(rows)))
print("latency (window end -> row visible): p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (pct(50), pct(99), lat[-1]))
print("rows per window: mean %.0f (rate x window = %d)" % (mean, rate * win // 1000))
PY
cat producer.log
