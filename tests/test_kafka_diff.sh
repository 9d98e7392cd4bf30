#!/usr/bin/env bash
# tests/test_kafka_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the Kafka source: random messages (random keys, event times out of order
# within each partition, several partitions, keys in the message key) go
# through weir (Kafka -> TUMBLE/HOP window COUNT/SUM/MIN/MAX -> print) and
# through python3 computing the same windows from the same messages, with no
# code shared. Each round picks the partition count, parallelism, window and
# disorder at random. Disorder stays below the watermark delay, so no record
# is late whatever the interleaving of partitions: the results are exact.
#
# WEIR_KAFKA_DIFF_SEED replays a run; WEIR_KAFKA_DIFF_ROUNDS (default 2) and
# WEIR_KAFKA_DIFF_MSGS (default 3000 per round) size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_kafka_diff: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_KAFKA_DIFF_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROUNDS=${WEIR_KAFKA_DIFF_ROUNDS:-2}
MSGS=${WEIR_KAFKA_DIFF_MSGS:-3000}
echo "test_kafka_diff: seed $SEED (WEIR_KAFKA_DIFF_SEED=$SEED replays it), $ROUNDS rounds of $MSGS messages"
T=$(mktemp -d /tmp/weir-kafka-diff-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

topics=()
for ((r = 0; r < ROUNDS; r++)); do topics+=("d$r:$(( (SEED + r * 7) % 5 + 1 ))"); done
"$MOCK" -f boot "${topics[@]}" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)

for ((r = 0; r < ROUNDS; r++)); do
    parts=$(( (SEED + r * 7) % 5 + 1 ))
    rm -rf round && mkdir round
    # gen.py writes round/p<P> (one "key:json" line per message), job.sql and
    # want.txt (the oracle's windows).
    python3 - "$SEED" "$r" "$parts" "$MSGS" "$B" <<'PY' || fail "generator failed"
import random, sys
seed, r, parts, msgs, boot = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rnd = random.Random(seed * 1000 + r)
delay = rnd.choice([0, 50, 200, 1000])
kind = rnd.choice(["TUMBLE", "HOP"])
size = rnd.choice([100, 250, 1000, 3000])
slide = size // rnd.choice([1, 2, 5]) if kind == "HOP" else size
par = rnd.randint(1, 3)
keys = ["k%d" % i for i in range(rnd.randint(1, 12))] + ["ünï", "a b"]
rows = []
for p in range(parts):
    t = rnd.randint(-5000, 5000)
    out = []
    for _ in range(msgs // parts):
        t += rnd.randint(0, 40)
        ts = t - (rnd.randint(0, delay) if delay else 0)   # disorder <= delay
        k, v = rnd.choice(keys), rnd.randint(-1000, 1000)
        out.append("%s:{\"v\":%d,\"ts_ms\":%d}" % (k, v, ts))
        rows.append((k, v, ts))
    open("round/p%d" % p, "w", encoding="utf-8").write("\n".join(out) + "\n")
win = {}
for k, v, ts in rows:
    last = ts - ts % slide                                  # floor for negatives too
    s = last
    while s > ts - size:
        w = win.setdefault((k, s, s + size), [0, 0, None, None])
        w[0] += 1; w[1] += v
        w[2] = v if w[2] is None else min(w[2], v)
        w[3] = v if w[3] is None else max(w[3], v)
        s -= slide
def fmt(ms):
    import datetime
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    # as Java's LocalDateTime#toString, which weir's print sink follows
    s = d.strftime("%Y-%m-%dT%H:%M")
    if ms % 60000:
        s += d.strftime(":%S")
    if ms % 1000:
        s += ".%03d" % (ms % 1000)
    return s
with open("round/want.txt", "w", encoding="utf-8") as f:
    for (k, s, e), (c, t, mn, mx) in win.items():
        f.write("+I[%s, %s, %s, %d, %d, %d, %d]\n" % (k, fmt(s), fmt(e), c, t, mn, mx))
tvf = ("TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND)" % size if kind == "TUMBLE" else
       "HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)" % (slide, size))
open("round/job.sql", "w", encoding="utf-8").write(f"""
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '{delay}' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = 'd{r}', 'properties.bootstrap.servers' = '{boot}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT, mn BIGINT, mx BIGINT)
  WITH ('connector' = 'print');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v)
FROM TABLE({tvf}) GROUP BY k, window_start, window_end;
""")
open("round/desc", "w").write(f"{parts} partitions, parallelism {par}, {kind} size {size} slide {slide}, delay {delay}")
open("round/par", "w").write(str(par))
PY
    for ((p = 0; p < parts; p++)); do
        kcat -P -b "$B" -t "d$r" -p "$p" -K: < "round/p$p" || fail "kcat could not produce"
    done
    timeout 120 "$WEIR" run round/job.sql -D parallelism.default="$(cat round/par)" 2> log |
        sed 's/^[0-9]*> //' | sort > round/got.txt
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "round $r: weir failed ($(cat round/desc))"
    sort round/want.txt > round/want.sorted
    if ! cmp -s round/want.sorted round/got.txt; then
        diff round/want.sorted round/got.txt | head -10
        fail "round $r ($(cat round/desc)): weir and the oracle differ (seed $SEED)"
    fi
    echo "  round $r: $(cat round/desc): $(wc -l < round/got.txt) windows equal"
done
echo "test_kafka_diff: passed"
