#!/usr/bin/env bash
# tests/test_nats_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the NATS source and sink against an oracle in python3 that shares no code
# with weir: random out-of-order events on several subjects of a JetStream
# stream (out of order by less than the watermark delay inside each subject,
# so no record is late whatever the interleaving), a TUMBLE window
# COUNT/SUM/MIN/MAX per key, published to a NATS subject; what a consumer
# reads there must equal what python computes from the same events.
#
# WEIR_NATS_DIFF_SEED replays a run; WEIR_NATS_DIFF_RUNS (default 3) cases.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
if ! command -v nats-server > /dev/null || [ ! -x "$(dirname "$WEIR")/weir-nats-tool" ]; then
    echo "test_nats_diff: SKIPPED (no nats-server or no weir-nats-tool)"; exit 0
fi
SEED=${WEIR_NATS_DIFF_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
RUNS=${WEIR_NATS_DIFF_RUNS:-3}
echo "test_nats_diff: seed $SEED (WEIR_NATS_DIFF_SEED=$SEED replays it), $RUNS cases"
T=$(mktemp -d /tmp/weir-nats-diff-XXXXXX)
. "$SRC/tests/support/nats_server.sh"
cleanup() { nats_stop; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }
nats_start "$T/nats" || fail "nats-server did not start"
U=$NATS_URL
tool() { "$NATS_TOOL" "$U" "$@" || fail "weir-nats-tool $*"; }

# c<N>/events.tsv (subject TAB json), c<N>/want.csv (the oracle's rows),
# c<N>/params, for every case in one python3 run
python3 - "$SEED" "$RUNS" <<'EOF' || fail "the generator failed"
import os, random, sys, json, datetime
def gen(rng, case):
    case_dir = "c%s" % case
    os.makedirs(case_dir)
    n_subj = rng.randint(2, 4)
    size_ms = rng.choice([100, 250, 1000, 2000])
    delay = rng.randint(50, 600)
    keys = ["k%d" % i for i in range(rng.randint(1, 6))]
    events = []
    for s in range(n_subj):
        n = rng.randint(0 if s == n_subj - 1 else 20, 300)
        hi = rng.randint(0, 5000)
        for _ in range(n):
            if rng.random() < 0.7:
                ts = hi + rng.randint(0, 40)
            else:  # behind the subject's max, by less than the delay
                ts = hi - rng.randint(0, delay - 1)
            ts = max(ts, 0)
            hi = max(hi, ts)
            v = rng.randint(-1000, 1000)
            events.append(("d%s.s%d" % (case, s), {"k": rng.choice(keys), "v": v, "ts_ms": ts}))
    with open(case_dir + "/events.tsv", "w") as f:
        for subj, e in events:
            f.write("%s\t%s\n" % (subj, json.dumps(e, separators=(",", ":"))))
    win = {}
    for _, e in events:
        start = e["ts_ms"] - e["ts_ms"] % size_ms
        st = win.setdefault((e["k"], start), [0, 0, None, None])
        st[0] += 1
        st[1] += e["v"]
        st[2] = e["v"] if st[2] is None else min(st[2], e["v"])
        st[3] = e["v"] if st[3] is None else max(st[3], e["v"])
    def fmt(ms):
        d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
        return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
    with open(case_dir + "/want.csv", "w") as f:
        for (k, start), (cnt, tot, mn, mx) in win.items():
            f.write("%s,%s,%s,%d,%d,%d,%d\n" % (k, fmt(start), fmt(start + size_ms), cnt, tot, mn, mx))
    subj = ",".join("d%s.s%d" % (case, s) for s in range(n_subj))
    with open(case_dir + "/params", "w") as f:
        f.write("SUBJECTS=%s\nSIZE_MS=%d\nDELAY=%d\nPAR=%d\nLIST=%d\n" %
                (subj, size_ms, delay, rng.randint(1, 2), rng.randint(0, 1)))
for c in range(int(sys.argv[2])):
    gen(random.Random(int(sys.argv[1]) * 1000 + c), str(c))
EOF
for ((c = 0; c < RUNS; c++)); do
    cd "$T/c$c" || fail "case $c was not generated"
    . ./params
    tool stream "d$c" "$SUBJECTS"
    tool pub - < events.tsv
    tool stream "o$c" "o$c.out"
    list=""
    [ "$LIST" = 1 ] && list=", 'subjects' = '$SUBJECTS'"
    cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '$DELAY' MILLISECOND)
WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'd$c', 'format' = 'json',
  'scan.bounded.mode' = 'latest'$list);
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), cnt BIGINT, total BIGINT, mn BIGINT, mx BIGINT)
WITH ('connector' = 'nats', 'servers' = '$U', 'sink.subject' = 'o$c.out', 'format' = 'csv');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '$SIZE_MS' MILLISECOND))
GROUP BY k, window_start, window_end;
EOF
    "$WEIR" run job.sql -D parallelism.default="$PAR" > /dev/null 2> log || fail "case $c: the job failed (seed $SEED)"
    "$NATS_TOOL" "$U" dump "o$c" | cut -f4 | sort > got.csv
    sort want.csv > want.sorted
    diff want.sorted got.csv > diff.txt || { head -5 diff.txt; fail "case $c differs from the oracle (seed $SEED; $(wc -l < events.tsv) events, window $SIZE_MS ms, delay $DELAY ms, parallelism $PAR)"; }
    echo "  case $c: $(wc -l < events.tsv) events on $(echo "$SUBJECTS" | tr ',' '\n' | wc -l) subjects, $(wc -l < got.csv) windows, parallelism $PAR: equal"
done
echo "test_nats_diff: passed"
