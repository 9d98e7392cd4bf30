#!/usr/bin/env bash
# tests/test_nats_source.sh WEIR SOURCE_DIR - the NATS JetStream source and
# sink against a real nats-server (started here on its own port and store
# folder, stopped from the EXIT trap), fed and read with weir-nats-tool:
#   1. formats json, csv and raw, bounded at the stream's last sequence;
#   2. subject filters (one split each, wildcards), startup modes sequence,
#      latest and timestamp;
#   3. errors: options (with suggestions), a stream that does not exist, a
#      server that does not answer, bad records (fail and skip);
#   4. three subjects, one silent: windows fire once the silent one is
#      idle, and its return inside an open window is counted;
#   5. the sink: at-least-once and none, what a consumer sees;
#   6. a server that wants a user and a password.
# Real time only where the idle timeout needs it, with bounded polls on
# observable output; no sleep decides a result.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
if ! command -v nats-server > /dev/null || [ ! -x "$(dirname "$WEIR")/weir-nats-tool" ]; then
    echo "test_nats_source: SKIPPED (no nats-server or no weir-nats-tool)"; exit 0
fi
T=$(mktemp -d /tmp/weir-nats-src-XXXXXX)
pids=()
. "$SRC/tests/support/nats_server.sh"
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
    nats_stop
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }
nats_start "$T/nats" || fail "nats-server did not start"
U=$NATS_URL
tool() { "$NATS_TOOL" "$U" "$@" || fail "weir-nats-tool $*"; }
run() { "$WEIR" run "$@" 2> log | sort; }

# ---- 1. formats, bounded ----
tool stream fmt "fmt.json,fmt.csv,fmt.raw"
printf '{"k":"a","v":1}\n{"k":"b","v":null}\n' | tool pub fmt.json
printf 'c,3\n"d,e",4\n' | tool pub fmt.csv
printf 'line one\n{not json}\n' | tool pub fmt.raw
job() { # $1 subjects, $2 format, $3 columns
    cat <<EOF
CREATE TABLE src ($3) WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'fmt',
  'subjects' = '$1', 'format' = '$2', 'scan.bounded.mode' = 'latest');
CREATE TABLE dst ($3) WITH ('connector' = 'print');
INSERT INTO dst SELECT * FROM src;
EOF
}
job fmt.json json "k STRING, v BIGINT" > j.sql
run j.sql > got.txt || fail "json job failed"
printf '+I[a, 1]\n+I[b, null]\n' | diff - got.txt || fail "json rows"
job fmt.csv csv "k STRING, v BIGINT" > c.sql
run c.sql > got.txt || fail "csv job failed"
printf '+I[c, 3]\n+I[d,e, 4]\n' | diff - got.txt || fail "csv rows"
job fmt.raw raw "line STRING" > r.sql
run r.sql > got.txt || fail "raw job failed"
printf '+I[line one]\n+I[{not json}]\n' | diff - got.txt || fail "raw rows"
echo "  json, csv and raw, bounded at the last sequence"

# ---- 2. subject filters and startup modes ----
tool stream ev "ev.a,ev.b,ev.c"
printf '{"v":1}\n{"v":2}\n' | tool pub ev.a
printf '{"v":3}\n' | tool pub ev.b
printf '{"v":4}\n' | tool pub ev.c
printf '{"v":5}\n' | tool pub ev.a
ev() { # $1: extra options
    cat <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'ev',
  'format' = 'json', 'scan.bounded.mode' = 'latest'$1);
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT * FROM src;
EOF
}
ev "" > e.sql
[ "$(run e.sql | tr -d '+I[]' | tr '\n' ' ')" = "1 2 3 4 5 " ] || fail "the stream's own subjects"
ev ", 'subjects' = 'ev.a; ev.c'" > e.sql
[ "$(run e.sql | tr -d '+I[]' | tr '\n' ' ')" = "1 2 4 5 " ] || fail "subjects ev.a and ev.c"
ev ", 'subjects' = 'ev.*'" > e.sql
[ "$(run e.sql -D parallelism.default=2 | sed "s/^[0-9]*> //" | sort | tr -d '+I[]' | tr '\n' ' ')" = "1 2 3 4 5 " ] || fail "wildcard"
ev ", 'scan.startup.mode' = 'sequence', 'scan.startup.sequence' = '3'" > e.sql
[ "$(run e.sql | tr -d '+I[]' | tr '\n' ' ')" = "3 4 5 " ] || fail "start at sequence 3"
ev ", 'scan.startup.mode' = 'latest'" > e.sql
[ -z "$(run e.sql)" ] || fail "latest, bounded at the same sequence, reads nothing"
grep -q "rows read" log || true
# The start is taken from the server's own stamps: 1 ms after message 5's.
# The server may stamp a message with a clock it refreshes only every 100 ms
# or so (late under load), so message 6 is published once the local clock is
# 300 ms past that start, and published again (the same value) while its
# stamp still falls before the start: only the copy stamped after it counts.
start=$(( $(tool time ev 5) / 1000000 + 1 ))
for ((n = 0; ; n++)); do
    [ "$n" -lt 20 ] || fail "the server stamped 20 messages before $start ms"
    for ((i = 0; i < 400 && $(date +%s%3N) <= start + 300; i++)); do sleep 0.005; done
    printf '{"v":6}\n' | tool pub ev.b
    [ "$(tool time ev $((6 + n)))" -ge $((start * 1000000)) ] && break
    sleep 0.1
done
ev ", 'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '$start'" > e.sql
[ "$(run e.sql | tr -d '+I[]' | tr '\n' ' ')" = "6 " ] || fail "start at a timestamp"
echo "  subject filters, wildcards, startup sequence / latest / timestamp"

# ---- 3. errors ----
expect_err() { # $1: sql file, $2: text the error must contain
    if "$WEIR" run "$1" > /dev/null 2> err.txt; then fail "$1 should fail"; fi
    grep -qF -- "$2" err.txt || { cat err.txt; fail "$1: expected '$2'"; }
}
opt() { # $1 options of src
    cat <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'format' = 'json'$1);
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT * FROM src;
EOF
}
opt ", 'servers' = '$U', 'stram' = 'ev'" > x.sql
expect_err x.sql "unsupported option 'stram' for connector 'nats' (did you mean 'stream'?)"
opt ", 'stream' = 'ev'" > x.sql
expect_err x.sql "connector 'nats' needs option 'servers'"
opt ", 'servers' = 'http://x:1', 'stream' = 'ev'" > x.sql
expect_err x.sql "option 'servers': 'http://x:1' is not a server"
opt ", 'servers' = '$U', 'stream' = 'ev', 'subjects' = 'ev.>.x'" > x.sql
expect_err x.sql "option 'subjects': 'ev.>.x' is not a subject filter"
opt ", 'servers' = '$U', 'stream' = 'ev', 'scan.startup.mode' = 'sequence'" > x.sql
expect_err x.sql "needs option 'scan.startup.sequence'"
opt ", 'servers' = '$U', 'stream' = 'ev', 'scan.startup.sequence' = '2'" > x.sql
expect_err x.sql "'scan.startup.mode' = 'earliest' does not read it"
opt ", 'servers' = '$U', 'stream' = 'ev', 'scan.bounded.mode' = 'latest-offset'" > x.sql
expect_err x.sql "option 'scan.bounded.mode': expected 'unbounded' or 'latest', found 'latest-offset'"
opt ", 'servers' = '$U', 'stream' = 'nope', 'scan.bounded.mode' = 'latest'" > x.sql
expect_err x.sql "nats: stream 'nope' does not exist on '$U'"
opt ", 'servers' = 'nats://127.0.0.1:1', 'stream' = 'ev', 'connect.timeout' = '200ms'" > x.sql
expect_err x.sql "nats: cannot connect to 'nats://127.0.0.1:1'"
opt ", 'servers' = '$U', 'stream' = 'ev', 'username' = 'u'" > x.sql
expect_err x.sql "needs option 'password'"
job fmt.raw json "k STRING" > x.sql
expect_err x.sql "fmt:fmt.raw:"
job fmt.raw raw "a STRING, b STRING" > x.sql
expect_err x.sql "format 'raw' reads the whole message into exactly one STRING or BYTES column"
cat > x.sql <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'ev', 'format' = 'json');
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'nats', 'servers' = '$U', 'sink.subject' = 'out.x',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO dst SELECT * FROM src;
EOF
expect_err x.sql "this job takes no checkpoints"
sed -i "s/'sink.subject' = 'out.x'/'sink.subject' = 'out.*'/; s/exactly-once/at-least-once/" x.sql
expect_err x.sql "option 'sink.subject': 'out.*' is not a subject to publish to"
sed -i "s/'sink.subject' = 'out.\*'/'sink.subject' = 'nowhere.x'/; s/'stream' = 'ev', 'format' = 'json');/'stream' = 'ev', 'format' = 'json', 'scan.bounded.mode' = 'latest');/" x.sql
expect_err x.sql "nats sink: 6 messages to 'nowhere.x' not stored: no stream captures the subject"
# bad records: fail names the split and sequence; ignore-parse-errors skips
tool stream bad "bad.x"
printf '{"v":1}\n{"v":\n{"v":3}\n' | tool pub bad.x
cat > b.sql <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'bad',
  'format' = 'json', 'scan.bounded.mode' = 'latest'JSONOPT);
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT * FROM src;
EOF
sed 's/JSONOPT//' b.sql > b1.sql
expect_err b1.sql "bad:bad.x:2: error:"
sed "s/JSONOPT/, 'json.ignore-parse-errors' = 'true'/" b.sql > b2.sql
[ "$(run b2.sql | tr -d '+I[]' | tr '\n' ' ')" = "1 3 " ] || fail "ignore-parse-errors"
echo "  option errors with suggestions, missing stream, no server, bad records"

# ---- 4. idleness: three subjects, one silent ----
tool stream idle "idle.a,idle.b,idle.c"
for s in a b; do
    printf '{"ts_ms":1000}\n{"ts_ms":15000}\n' | tool pub idle.$s
done
cat > i.sql <<EOF
CREATE TABLE src (ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'idle', 'format' = 'json');
CREATE TABLE dst (window_end TIMESTAMP(3), cnt BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
EOF
"$WEIR" run i.sql -D table.exec.source.idle-timeout=300ms > iout.txt 2> log &
pid=$!
pids+=("$pid")
wait_for() { # $1: pattern, $2: file
    for ((i = 0; i < 400; i++)); do grep -q "$1" "$2" 2> /dev/null && return 0; sleep 0.05; done
    return 1
}
wait_for "1970-01-01T00:00:10" iout.txt || fail "the window [0, 10 s) did not fire once idle.c was idle"
grep -q "+I\[1970-01-01T00:00:10, 2\]" iout.txt || { cat iout.txt; fail "window [0, 10 s) should count 2"; }
# idle.c returns inside the open window [10 s, 20 s): counted once its split
# has read it (its row count on the job's /metrics endpoint).
echo '{"ts_ms":16000}' | tool pub idle.c
url=$(grep -o 'http://127.0.0.1:[0-9]*/' log | head -1)
[ -n "$url" ] || { cat log; fail "weir run printed no endpoint address"; }
read_c() {
    for ((i = 0; i < 400; i++)); do
        curl -s "${url}metrics" | grep 'split_numRecordsIn' | grep 'idle:idle.c' | grep -q ' 1$' && return 0
        sleep 0.05
    done
    return 1
}
read_c || { curl -s "${url}metrics" | grep split_numRecordsIn; fail "idle.c's returning row was not read"; }
for s in a b c; do echo '{"ts_ms":25000}' | tool pub idle.$s; done
wait_for "1970-01-01T00:00:20" iout.txt || fail "the window [10 s, 20 s) did not fire"
grep -q "+I\[1970-01-01T00:00:20, 3\]" iout.txt || { cat iout.txt; fail "the returning subject's record was lost"; }
curl -s "${url}metrics" | grep -q 'lag_records' || fail "no lag metrics on /metrics"
kill -TERM "$pid"; wait "$pid" 2> /dev/null
echo "  a silent subject goes idle and releases the watermark; its return is counted"

# ---- 5. the sink ----
tool stream out "out.>"
for g in at-least-once none; do
    cat > s.sql <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'servers' = '$U', 'stream' = 'ev',
  'subjects' = 'ev.a', 'format' = 'json', 'scan.bounded.mode' = 'latest');
CREATE TABLE dst (v BIGINT, w STRING) WITH ('connector' = 'nats', 'servers' = '$U',
  'sink.subject' = 'out.$g', 'format' = 'json', 'sink.delivery-guarantee' = '$g');
INSERT INTO dst SELECT v, CAST(v * 10 AS STRING) FROM src;
EOF
    "$WEIR" run s.sql > /dev/null 2> log || fail "sink job ($g) failed"
done
tool dump out | cut -f2,4 > got.txt
printf 'out.at-least-once\t{"v":1,"w":"10"}\nout.at-least-once\t{"v":2,"w":"20"}\nout.at-least-once\t{"v":5,"w":"50"}\n' > want.txt
printf 'out.none\t{"v":1,"w":"10"}\nout.none\t{"v":2,"w":"20"}\nout.none\t{"v":5,"w":"50"}\n' >> want.txt
diff want.txt got.txt || fail "what the sink published"
echo "  sink: json rows published, at-least-once and none"

# ---- 6. credentials: a server that wants a user and a password ----
mkdir -p auth
nats-server -js -sd auth/js -a 127.0.0.1 -p -1 --user weir --pass s3cret -l auth/server.log > /dev/null 2>&1 &
AUTH_PID=$!
pids+=("$AUTH_PID")
for ((i = 0; i < 200; i++)); do grep -q "Server is ready" auth/server.log 2> /dev/null && break; sleep 0.05; done
AP=$(sed -n 's/.*Listening for client connections on 127.0.0.1:\([0-9]*\).*/\1/p' auth/server.log | head -1)
[ -n "$AP" ] || fail "the server with a password did not start"
"$NATS_TOOL" "nats://weir:s3cret@127.0.0.1:$AP" stream sec "sec.x" || fail "stream on the password server"
echo '{"v":42}' | "$NATS_TOOL" "nats://weir:s3cret@127.0.0.1:$AP" pub sec.x || fail "publish to the password server"
auth() { # $1: credentials options
    cat <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'nats', 'servers' = 'nats://127.0.0.1:$AP',
  'stream' = 'sec', 'format' = 'json', 'scan.bounded.mode' = 'latest'$1);
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT * FROM src;
EOF
}
auth ", 'username' = 'weir', 'password' = 's3cret'" > a.sql
[ "$(run a.sql)" = "+I[42]" ] || fail "reading with a user and a password"
auth ", 'username' = 'weir', 'password' = 'wrong'" > a.sql
expect_err a.sql "nats: cannot connect to 'nats://127.0.0.1:$AP'"
echo "  username and password"
echo "test_nats_source: passed"
