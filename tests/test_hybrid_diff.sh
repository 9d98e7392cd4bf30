#!/usr/bin/env bash
# tests/test_hybrid_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the hybrid source ('connector' = 'hybrid': a bounded history, then the
# live topic) against python3 computing the same windows from the same
# events as one sequence, with no code shared. Each round picks:
#   - the history: files ('filesystem', 1-3 files, the live part starting
#     at the topic's first offsets) or a range of the live topic itself
#     ('kafka' with 'history.scan.bounded.mode' = 'specific-offsets' at a
#     random offset per partition: the live part goes on from there);
#   - partitions, parallelism, TUMBLE or HOP, watermark delay.
# Rounds with one file and one partition read one sequence, so their events
# are out of order by more than the delay across the switch: late rows are
# sent to a late-records table and must be exactly the oracle's (the same
# as one source over the whole input). Rounds with more splits keep the
# disorder within the delay (no row late, whatever the interleaving).
# The live part is bounded at the latest offsets so that every run ends.
#
# WEIR_HYBRID_DIFF_SEED replays a run; WEIR_HYBRID_DIFF_ROUNDS (default 4)
# and WEIR_HYBRID_DIFF_MSGS (default 2000 per round) size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_hybrid_diff: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_HYBRID_DIFF_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROUNDS=${WEIR_HYBRID_DIFF_ROUNDS:-4}
MSGS=${WEIR_HYBRID_DIFF_MSGS:-2000}
echo "test_hybrid_diff: seed $SEED (WEIR_HYBRID_DIFF_SEED=$SEED replays it), $ROUNDS rounds of $MSGS events"
T=$(mktemp -d /tmp/weir-hybrid-diff-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

# Round r's shape comes from the seed alone, so the topics can be created
# before the rounds run.
shape() { python3 -c "
import random,sys
rnd = random.Random($SEED * 1000 + $1)
single = rnd.random() < 0.5
print(1 if single else rnd.randint(1, 3), 'files' if rnd.random() < 0.5 else 'kafka', int(single))"; }
topics=()
for ((r = 0; r < ROUNDS; r++)); do
    read -r parts _ _ <<< "$(shape "$r")"
    topics+=("h$r:$parts")
done
"$MOCK" -f boot "${topics[@]}" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)

late_total=0
for ((r = 0; r < ROUNDS; r++)); do
    read -r parts hist single <<< "$(shape "$r")"
    rm -rf round && mkdir -p round/hist
    python3 - "$SEED" "$r" "$parts" "$hist" "$single" "$MSGS" "$B" <<'PY' || fail "generator failed"
import random, sys, datetime
seed, r, parts, hist, single, msgs, boot = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1", int(sys.argv[6]), sys.argv[7]
rnd = random.Random(seed * 1000 + r)
rnd.random()                                    # shape() drew these
if not single:
    rnd.randint(1, 3)
rnd.random()
delay = rnd.choice([0, 50, 200, 1000])
kind = rnd.choice(["TUMBLE", "HOP"])
size = rnd.choice([100, 250, 1000, 3000])
slide = size // rnd.choice([1, 2, 5]) if kind == "HOP" else size
par = 1 if single else rnd.randint(1, 3)
files = 1 if single else rnd.randint(1, 3)
keys = ["k%d" % i for i in range(rnd.randint(1, 8))]
# One global sequence: event i has base time b_i (increasing); its event
# time is b_i minus a jitter. The history is the first h events.
n = msgs
h = rnd.randint(n // 5, 4 * n // 5)
base = rnd.randint(-5000, 5000)
events = []
for i in range(n):
    base += rnd.randint(0, 30)
    if single:
        j = rnd.choice([0, 0, 0, rnd.randint(0, 3 * delay + 300), rnd.randint(0, 5000)])
    else:
        j = rnd.randint(0, delay)               # within the delay: never late
    events.append((rnd.choice(keys), rnd.randint(-1000, 1000), base - j))
def js(e):
    return '{"k":"%s","v":%d,"ts_ms":%d}' % e
# Where each event goes: history file f / partition p; live partition p.
hist_files = [[] for _ in range(files)]
part_rows = [[] for _ in range(parts)]
bound = [0] * parts                             # kafka history: its end per partition
for i, e in enumerate(events):
    if hist == "files" and i < h:
        hist_files[i % files].append(e)
    else:
        p = i % parts
        part_rows[p].append(e)
        if hist == "kafka" and i < h:
            bound[p] = len(part_rows[p])
for f, rows in enumerate(hist_files):
    if rows:
        open("round/hist/part-%d.json" % f, "w").write("".join(js(e) + "\n" for e in rows))
for p, rows in enumerate(part_rows):
    open("round/p%d" % p, "w").write("".join(js(e) + "\n" for e in rows))
# The oracle: one source read in the order above (single-split rounds: the
# only order; other rounds have no late rows, so the order does not matter).
win, late = {}, []
W = None
for k, v, ts in events:
    lo = ts - ts % slide
    starts = []
    s = lo
    while s > ts - size:
        starts.append(s)
        s -= slide
    ok = [s for s in starts if W is None or s + size > W]
    if not ok:
        late.append((k, v, ts))
    for s in ok:
        w = win.setdefault((k, s, s + size), [0, 0, None, None])
        w[0] += 1; w[1] += v
        w[2] = v if w[2] is None else min(w[2], v)
        w[3] = v if w[3] is None else max(w[3], v)
    wm = ts - delay
    if W is None or wm > W:
        W = wm
def fmt(ms):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    s = d.strftime("%Y-%m-%dT%H:%M")
    if ms % 60000:
        s += d.strftime(":%S")
    if ms % 1000:
        s += ".%03d" % (ms % 1000)
    return s
with open("round/want.txt", "w") as f:
    for (k, s, e), (c, t, mn, mx) in win.items():
        f.write("w +I[%s, %s, %s, %d, %d, %d, %d]\n" % (k, fmt(s), fmt(e), c, t, mn, mx))
    for k, v, ts in late:
        f.write("late +I[%s, %d, %d]\n" % (k, v, ts))
tvf = ("TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND)" % size if kind == "TUMBLE" else
       "HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)" % (slide, size))
if hist == "files":
    hopts = "'history.connector' = 'filesystem', 'history.path' = 'round/hist',\n  " + \
        "'live.scan.startup.mode' = 'earliest-offset'"
else:
    hopts = "'history.connector' = 'kafka', 'history.scan.startup.mode' = 'earliest-offset',\n  " + \
        "'history.scan.bounded.mode' = 'specific-offsets', 'history.scan.bounded.specific-offsets' = '%s'" % \
        ";".join("partition:%d,offset:%d" % (p, bound[p]) for p in range(parts))
open("round/job.sql", "w").write(f"""
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '{delay}' MILLISECOND)
WITH ('connector' = 'hybrid', 'sources' = 'history,live', 'format' = 'json',
  {hopts},
  'live.connector' = 'kafka', 'topic' = 'h{r}', 'properties.bootstrap.servers' = '{boot}',
  'live.scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT, mn BIGINT, mx BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'w');
CREATE TABLE late_rows (k STRING, v BIGINT, ts_ms BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'late');
SET 'weir.late-records.table' = 'late_rows';
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v)
FROM TABLE({tvf}) GROUP BY k, window_start, window_end;
""")
open("round/desc", "w").write(f"{hist} history ({files if hist == 'files' else 'range of'} files/topic, {h} of {n} events), "
                              f"{parts} partitions, parallelism {par}, {kind} size {size} slide {slide}, delay {delay}, late {len(late)}")
open("round/par", "w").write(str(par))
open("round/late", "w").write(str(len(late)))
PY
    for ((p = 0; p < parts; p++)); do
        [ -s "round/p$p" ] || continue
        kcat -P -b "$B" -t "h$r" -p "$p" < "round/p$p" || fail "kcat could not produce"
    done
    timeout 120 "$WEIR" run round/job.sql -D parallelism.default="$(cat round/par)" 2> log |
        sed -E 's/^(w|late)(:[0-9]+)?> /\1 /' | sort > round/got.txt
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "round $r: weir failed ($(cat round/desc))"
    sort round/want.txt > round/want.sorted
    if ! cmp -s round/want.sorted round/got.txt; then
        diff round/want.sorted round/got.txt | head -10
        fail "round $r ($(cat round/desc)): weir and the oracle differ (seed $SEED)"
    fi
    late_total=$((late_total + $(cat round/late)))
    echo "  round $r: $(cat round/desc): $(wc -l < round/got.txt) rows equal"
done
echo "  $late_total late rows in all, each routed as the oracle says"
echo "test_hybrid_diff: passed"
