#!/usr/bin/env bash
# Logs without a terminal (stderr to a file): every line levelled and
# timestamped (text and JSON), a progress line at log.progress.interval, and
# the end-of-run summary: rows read per source, rows written per sink, late
# rows per operator (dropped, or routed to the late-records table), counted
# against a python oracle on random out-of-order input (seed printed;
# WEIR_LOG_SEED replays it, WEIR_LOG_ROUNDS sets the count).
# Usage: test_log.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEIR_REGISTRY_DIR=$work/reg
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
seed=${WEIR_LOG_SEED:-${WEIR_SEED:-$RANDOM}}
rounds=${WEIR_LOG_ROUNDS:-3}
echo "seed $seed (WEIR_LOG_SEED=$seed replays it), $rounds rounds"

# Progress cadence: a job of about 1.5 s (datagen starts with a burst), a progress line every 200 ms.
cat >"$work/slow.sql" <<'SQL'
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'number-of-rows' = '2500');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM g;
SQL
"$weir" run "$work/slow.sql" -D log.progress.interval=200ms >/dev/null 2>"$work/slow.err"; rc=$?
check "the slow job exits 0" test $rc -eq 0
check "every line is levelled and timestamped" \
  python3 -c 'import re,sys; ls=open(sys.argv[1]).read().splitlines(); sys.exit(not ls or not all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARN |ERROR) ", l) for l in ls))' "$work/slow.err"
# At least 4 progress lines in 1.5 s, none bunched. Ticks keep a fixed
# cadence, so on a loaded machine a tick that came d ms late is followed by
# one 200 - d ms later: a gap under 150 ms is allowed only right after a gap
# that makes up for it (the two together at least 350 ms).
check "progress lines at the interval" python3 - "$work/slow.err" <<'PY'
import sys, datetime
ts = [datetime.datetime.strptime(l[:23], "%Y-%m-%dT%H:%M:%S.%f") for l in open(sys.argv[1]) if " progress: in " in l]
gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:])]
ok = len(ts) >= 4 and all(g >= 0.15 or (i > 0 and g >= 0 and gaps[i - 1] + g >= 0.35) for i, g in enumerate(gaps))
if not ok:
    print("progress lines:", len(ts), "gaps:", gaps)
sys.exit(not ok)
PY
check "the summary counts the rows read" grep -q "summary: source datagen (task 0): 2500 rows read" "$work/slow.err"
check "the summary counts the rows written" grep -q "summary: sink blackhole (task 0): 2500 rows written" "$work/slow.err"
check "the summary says there were no checkpoints" grep -q "summary: checkpoints: none" "$work/slow.err"
"$weir" run "$work/slow.sql" -D log.progress.interval=0 >/dev/null 2>"$work/off.err"
check "log.progress.interval=0 turns progress off" bash -c "! grep -q progress: '$work/off.err'"
"$weir" run "$work/slow.sql" -D log.level=WARN >/dev/null 2>"$work/warn.err"
check "log.level=WARN keeps INFO lines out" test ! -s "$work/warn.err"
"$weir" run "$work/slow.sql" -D log.level=LOUD >/dev/null 2>"$work/bad.err"; rc=$?
check "a bad log.level is refused (exit 3)" test $rc -eq 3
check "a bad log.level names the levels" grep -q "DEBUG, INFO, WARN or ERROR" "$work/bad.err"

# Late rows: a 1 s tumbling window over random out-of-order rows.
for r in $(seq 1 "$rounds"); do
  python3 - "$seed" "$r" "$work" <<'PY'
import json, random, sys
seed, r, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rnd = random.Random(seed * 1000 + r)
n, delay = rnd.randint(50, 400), rnd.choice([0, 200, 1000])
rows, t = [], 10000
for i in range(n):
    t += rnd.randint(0, 300)
    ts = max(0, t - rnd.choice([0, 0, 0, rnd.randint(0, 3000)]))  # some rows come late
    rows.append({"k": rnd.choice("abc"), "ts_ms": ts})
with open(f"{work}/in.json", "w") as f:
    f.write("".join(json.dumps(x) + "\n" for x in rows))
# The oracle: the watermark after a record is max(ts so far) - delay; a row
# is late when its window [s, s + 1000) has end <= the watermark before it.
late, mx = 0, None
for x in rows:
    end = x["ts_ms"] // 1000 * 1000 + 1000
    if mx is not None and end <= mx - delay:
        late += 1
    mx = x["ts_ms"] if mx is None else max(mx, x["ts_ms"])
open(f"{work}/late", "w").write(str(late))
open(f"{work}/n", "w").write(str(n))
open(f"{work}/delay", "w").write(str(delay))
PY
  late=$(cat "$work/late"); n=$(cat "$work/n"); delay=$(cat "$work/delay")
  for route in drop route; do
    extra=""
    [ $route = route ] && extra="CREATE TABLE lr (k STRING, ts_ms BIGINT) WITH ('connector' = 'blackhole');
SET 'weir.late-records.table' = 'lr';"
    cat >"$work/late.sql" <<SQL
CREATE TABLE src (k STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '$delay' MILLISECOND) WITH ('connector' = 'filesystem', 'path' = '$work/in.json', 'format' = 'json');
CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
$extra
INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;
SQL
    "$weir" run "$work/late.sql" -D log.format=json >/dev/null 2>"$work/late.err"; rc=$?
    check "round $r ($route): the job exits 0" test $rc -eq 0
    check "round $r ($route): every line is a JSON object with time, level, message" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert set(o) == {"time", "level", "message"}, o' "$work/late.err"
    got=$(python3 -c '
import json, re, sys
for l in open(sys.argv[1]):
    m = re.match(r"summary: operator (.*): (\d+) late rows? (dropped|routed)", json.loads(l)["message"])
    if m: print(m.group(1), m.group(2), m.group(3))' "$work/late.err")
    if [ "$late" -eq 0 ]; then
      check "round $r ($route): no late rows, none reported" test -z "$got"
    else
      want=dropped; [ $route = route ] && want=routed
      check "round $r ($route): $late late rows $want in the summary (seed $seed)" \
        test "$got" = "tumbling window (task 1) $late $want"
    fi
    check "round $r ($route): $n rows read" grep -q "source filesystem (task 0): $n rows read" "$work/late.err"
  done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
