#!/usr/bin/env bash
# tests/test_kafka_source.sh WEIR SOURCE_DIR - the Kafka source against a
# Kafka cluster over TCP (weir-kafka-mock, next to the weir binary), fed
# with kcat; and the stdin source through a pipe.
#   1. metadata columns (partition, offset, topic, timestamp, headers, key),
#      key.format + key.fields + value.fields-include, exact output;
#   2. bounded modes end the job at the recorded offsets: latest-offset,
#      specific-offsets, timestamp; startup modes specific-offsets,
#      timestamp, latest-offset;
#   3. offsets committed to the group when checkpoints complete: a second
#      job with 'group-offsets' reads only what the first did not;
#   4. four partitions, one silent: windows fire once the silent one is
#      idle; its return is counted, not late;
#   5. partition discovery while running: a topic-pattern picks up a topic
#      created after the start;
#   6. errors: a topic that does not exist, a bad record (fail and skip);
#   7. stdin: json, csv and raw through a pipe, bad-record policy.
# Real time only where Kafka needs it (the idle timeout, discovery), with
# bounded polls on observable output; no sleep decides a result.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_kafka_source: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
T=$(mktemp -d /tmp/weir-kafka-src-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
    [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

"$MOCK" -f boot meta:2 bnd:3 grp:2 idle:4 badrec:1 > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)
produce() { kcat -P -b "$B" "$@" || fail "kcat could not produce"; }

# ---- 1. metadata, key and value ----
printf 'u1:{"v":1}\nu2:{"v":2}\n' | produce -t meta -p 0 -K: -H src=app -H n=1
printf 'u3:{"v":3}\n' | produce -t meta -p 1 -K:
cat > meta.sql <<EOF
CREATE TABLE src (
  uid STRING, v BIGINT,
  part INT METADATA FROM 'partition', off BIGINT METADATA FROM 'offset' VIRTUAL,
  tp STRING METADATA FROM 'topic', hdr STRING METADATA FROM 'headers',
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', tt STRING METADATA FROM 'timestamp-type',
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'kafka', 'topic' = 'meta', 'properties.bootstrap.servers' = '$B',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'uid', 'value.format' = 'json',
  'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE dst (uid STRING, v BIGINT, part INT, off BIGINT, tp STRING, hdr STRING, tt STRING, recent BOOLEAN)
  WITH ('connector' = 'print');
INSERT INTO dst SELECT uid, v, part, off, tp, hdr, tt,
  ts > TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP() * 1000 - 600000, 3) FROM src;
EOF
"$WEIR" run meta.sql > out.txt 2> log || fail "metadata job failed"
sort out.txt > got.txt
cat > want.txt <<'EOF'
+I[u1, 1, 0, 0, meta, {"src":"app","n":"1"}, CreateTime, true]
+I[u2, 2, 0, 1, meta, {"src":"app","n":"1"}, CreateTime, true]
+I[u3, 3, 1, 0, meta, {}, CreateTime, true]
EOF
diff want.txt got.txt || fail "metadata columns"
echo "  metadata columns, key.fields, EXCEPT_KEY: exact"

# ---- 2. bounded and startup modes ----
# bnd: partition p holds values p*100 + 0..9, produced in two rounds of 5
# per partition; the timestamp that separates the rounds is read back.
for p in 0 1 2; do
    for i in 0 1 2 3 4; do echo "{\"v\":$((p * 100 + i))}"; done | produce -t bnd -p $p
done
for ((i = 0; i < 100; i++)); do
    last=$(kcat -C -b "$B" -t bnd -e -q -f '%T\n' 2> /dev/null | sort -n | tail -1)
    now=$(( $(date +%s%N) / 1000000 ))
    [ -n "$last" ] && [ "$now" -gt "$last" ] && break
    sleep 0.01
done
CUT=$(( last + 1 ))
while [ $(( $(date +%s%N) / 1000000 )) -le "$CUT" ]; do sleep 0.005; done
for p in 0 1 2; do
    for i in 5 6 7 8 9; do echo "{\"v\":$((p * 100 + i))}"; done | produce -t bnd -p $p
done
first2=$(kcat -C -b "$B" -t bnd -e -q -f '%o %T\n' 2> /dev/null | awk '$1 >= 5 { print $2 }' | sort -n | head -1)
[ "$first2" -ge "$CUT" ] || fail "the second round is not after the cut ($first2 < $CUT)"
bjob() { # $1: extra options
    cat <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'bnd',
  'properties.bootstrap.servers' = '$B', 'format' = 'json' $1);
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT v FROM src;
EOF
}
want() { for p in 0 1 2; do for i in $(seq "$1" "$2"); do echo "+I[$((p * 100 + i))]"; done; done | sort; }
check_mode() { # $1: name, $2: options, $3/$4: the range of i expected per partition
    bjob "$2" > b.sql
    timeout 60 "$WEIR" run b.sql > out.txt 2> log || fail "$1: the job failed or did not end"
    sort out.txt > got.txt
    want "$3" "$4" | diff - got.txt > /dev/null || { diff <(want "$3" "$4") got.txt | head; fail "$1"; }
}
E=", 'scan.startup.mode' = 'earliest-offset'"
check_mode "bounded latest-offset" "$E, 'scan.bounded.mode' = 'latest-offset'" 0 9
check_mode "bounded timestamp" "$E, 'scan.bounded.mode' = 'timestamp', 'scan.bounded.timestamp-millis' = '$CUT'" 0 4
check_mode "startup timestamp" ", 'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '$CUT', 'scan.bounded.mode' = 'latest-offset'" 5 9
# specific offsets: partition 0 from 2 to 7, the others from 3 to the end
bjob ", 'scan.startup.mode' = 'specific-offsets', 'scan.startup.specific-offsets' = 'partition:0,offset:2;partition:1,offset:3;partition:2,offset:3', 'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = 'partition:0,offset:7'" > b.sql
timeout 60 "$WEIR" run b.sql > out.txt 2> log || fail "specific offsets: the job failed"
{ for i in 2 3 4 5 6; do echo "+I[$i]"; done; for p in 1 2; do for i in 3 4 5 6 7 8 9; do echo "+I[$((p * 100 + i))]"; done; done; } | sort > want.txt
sort out.txt | diff want.txt - || fail "specific offsets"
check_mode "startup latest-offset" ", 'scan.startup.mode' = 'latest-offset', 'scan.bounded.mode' = 'latest-offset'" 1 0
echo "  bounded latest/timestamp/specific, startup timestamp/specific/latest: exact"

# ---- 3. commits to the group on checkpoints ----
for i in $(seq 1 20); do echo "{\"v\":$i}"; done | produce -t grp -p 0
for i in $(seq 21 30); do echo "{\"v\":$i}"; done | produce -t grp -p 1
gjob() {
    cat <<EOF
CREATE TABLE src (v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'grp',
  'properties.bootstrap.servers' = '$B', 'properties.group.id' = 'g1', 'format' = 'json',
  'properties.auto.offset.reset' = 'earliest', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT v FROM src;
EOF
}
gjob > g.sql
timeout 60 "$WEIR" run g.sql -D state.checkpoints.dir=ck1 -D execution.checkpointing.interval=50ms \
    > out1.txt 2> log || fail "group job 1 failed"
[ "$(wc -l < out1.txt)" -eq 30 ] || fail "group job 1 read $(wc -l < out1.txt) rows, not 30"
for i in $(seq 31 35); do echo "{\"v\":$i}"; done | produce -t grp -p 0
# A new job (new checkpoint folder) of the same group: from the committed offsets.
timeout 60 "$WEIR" run g.sql -D state.checkpoints.dir=ck2 -D execution.checkpointing.interval=50ms \
    > out2.txt 2> log || fail "group job 2 failed"
sort out2.txt > got.txt
for i in $(seq 31 35); do echo "+I[$i]"; done | sort | diff - got.txt || fail "group-offsets after commits"
echo "  offsets committed on checkpoint completion; group-offsets resumes there"
# scan.bounded.mode = group-offsets: from the start up to the group's
# committed offsets (p0: 25, p1: 10), not the records produced after them.
for i in $(seq 36 40); do echo "{\"v\":$i}"; done | produce -t grp -p 0
sed -e "s/'scan.bounded.mode' = 'latest-offset'/'scan.bounded.mode' = 'group-offsets', 'scan.startup.mode' = 'earliest-offset'/" g.sql > gb.sql
timeout 60 "$WEIR" run gb.sql > out3.txt 2> log || fail "bounded group-offsets job failed"
sort out3.txt > got.txt
for i in $(seq 1 35); do echo "+I[$i]"; done | sort | diff - got.txt || fail "scan.bounded.mode = group-offsets"
echo "  scan.bounded.mode = group-offsets stops at the committed offsets"

# ---- 4. idleness: four partitions, one silent ----
ijob() {
    cat <<EOF
CREATE TABLE src (k STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'idle', 'properties.bootstrap.servers' = '$B',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE dst (window_end TIMESTAMP(3), cnt BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
EOF
}
ijob > i.sql
for p in 0 1 2; do
    printf '{"k":"a","ts_ms":%d}\n{"k":"a","ts_ms":%d}\n' $((1000 + p)) $((15000 + p)) | produce -t idle -p $p
done
"$WEIR" run i.sql -D table.exec.source.idle-timeout=300ms > iout.txt 2> log &
pid=$!
pids+=("$pid")
wait_for() { # $1: pattern, $2: file
    for ((i = 0; i < 400; i++)); do grep -q "$1" "$2" 2> /dev/null && return 0; sleep 0.05; done
    return 1
}
wait_for "1970-01-01T00:00:10" iout.txt || fail "the window [0, 10 s) did not fire once partition 3 was idle"
grep -q "+I\[1970-01-01T00:00:10, 3\]" iout.txt || { cat iout.txt; fail "window [0, 10 s) should count 3"; }
# The silent partition returns inside the open window [10 s, 20 s): counted,
# provided weir reads it before the other partitions move on (otherwise it
# is late, as in Flink): wait until the split idle-3 has read its row (its
# row count on the job's /metrics endpoint), then produce the rest.
echo '{"k":"b","ts_ms":16000}' | produce -t idle -p 3
url=$(grep -o 'http://127.0.0.1:[0-9]*/' log | head -1)
[ -n "$url" ] || { cat log; fail "weir run printed no endpoint address"; }
read_p3() {
    for ((i = 0; i < 400; i++)); do
        curl -s "${url}metrics" | grep 'split_numRecordsIn' | grep 'split="idle-3"' | grep -q ' 1$' && return 0
        sleep 0.05
    done
    return 1
}
read_p3 || { curl -s "${url}metrics" | grep split_numRecordsIn; fail "partition 3's returning row was not read"; }
for p in 0 1 2 3; do echo "{\"k\":\"c\",\"ts_ms\":$((25000 + p))}" | produce -t idle -p $p; done
wait_for "1970-01-01T00:00:20" iout.txt || fail "the window [10 s, 20 s) did not fire"
grep -q "+I\[1970-01-01T00:00:20, 4\]" iout.txt || { cat iout.txt; fail "the returning partition's record was lost"; }
kill -TERM "$pid"; wait "$pid" 2> /dev/null
echo "  idle partition releases the watermark; its return is counted"

# ---- 5. discovery: a topic created while the job runs ----
cat > d.sql <<EOF
CREATE TABLE src (v BIGINT, tp STRING METADATA FROM 'topic') WITH ('connector' = 'kafka',
  'topic-pattern' = 'disc-[a-z]+', 'properties.bootstrap.servers' = '$B',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json',
  'scan.topic-partition-discovery.interval' = '100 ms');
CREATE TABLE dst (v BIGINT, tp STRING) WITH ('connector' = 'print');
INSERT INTO dst SELECT v, tp FROM src;
EOF
echo '{"v":1}' | produce -t disc-a
"$WEIR" run d.sql > dout.txt 2> log &
pid=$!
pids+=("$pid")
wait_for "+I\[1, disc-a\]" dout.txt || fail "discovery: nothing from disc-a"
echo '{"v":2}' | produce -t disc-b
echo '{"v":3}' | produce -t other
wait_for "+I\[2, disc-b\]" dout.txt || fail "discovery: the new topic disc-b was not picked up"
kill -TERM "$pid"; wait "$pid" 2> /dev/null
grep -q other dout.txt && fail "discovery: a topic outside the pattern was read"
echo "  topic-pattern discovers a new topic while running"

# ---- 6. errors ----
bjob "$E" | sed "s/'topic' = 'bnd'/'topic' = 'nosuch'/" > e.sql
timeout 60 "$WEIR" run e.sql > /dev/null 2> log && fail "a missing topic was accepted"
grep -q "topic 'nosuch' does not exist" log || fail "missing topic: $(cat log)"
printf '{"v":1}\nnot json\n{"v":3}\n' | produce -t badrec -p 0
bjob "$E, 'scan.bounded.mode' = 'latest-offset'" | sed "s/'topic' = 'bnd'/'topic' = 'badrec'/" > e.sql
timeout 60 "$WEIR" run e.sql > /dev/null 2> log && fail "a bad record was accepted"
grep -q "badrec-0:1: error: value of the message" log || fail "bad record message: $(cat log)"
sed "s/'format' = 'json'/'format' = 'json', 'json.ignore-parse-errors' = 'true'/" e.sql > e2.sql
timeout 60 "$WEIR" run e2.sql > out.txt 2> log || fail "skip policy failed"
[ "$(sort out.txt | tr '\n' ' ')" = "+I[1] +I[3] " ] || fail "skip policy: $(cat out.txt)"
echo "  missing topic, bad record (fail, skip)"

# ---- 7. stdin ----
cat > s.sql <<'EOF'
CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'stdin', 'format' = 'json',
  'source.bad-input' = 'dead-letter', 'source.dead-letter.path' = 'dl.json');
CREATE TABLE dst (k STRING, total BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT k, SUM(v) FROM src GROUP BY k;
EOF
printf '{"k":"a","v":1}\n{"k":"b","v":2}\nbad\n{"k":"a","v":3}\n' | "$WEIR" run s.sql > out.txt 2> log || fail "stdin json"
[ "$(tail -1 out.txt)" = "+U[a, 4]" ] || fail "stdin json: $(cat out.txt)"
grep -q '"line":3' dl.json || fail "stdin dead letter: $(cat dl.json)"
cat > r.sql <<'EOF'
CREATE TABLE src (line STRING) WITH ('connector' = 'stdin', 'format' = 'raw');
CREATE TABLE dst (line STRING, n INT) WITH ('connector' = 'print');
INSERT INTO dst SELECT line, CHAR_LENGTH(line) FROM src;
EOF
printf 'hello world\r\n\nlast' | "$WEIR" run r.sql > out.txt 2> log || fail "stdin raw"
printf '+I[hello world, 11]\n+I[, 0]\n+I[last, 4]\n' | diff - out.txt || fail "stdin raw"
cat > c.sql <<'EOF'
CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'stdin', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT k, v FROM src;
EOF
printf 'a,1\nb,x\n' | "$WEIR" run c.sql > out.txt 2> log && fail "stdin csv bad record accepted"
grep -q "stdin:2:3: error" log || fail "stdin csv error position: $(cat log)"
# kcat -C ... | weir run
kcat -C -b "$B" -t grp -e -q -p 1 | sed 's/"v"/"k":"x","v"/' | "$WEIR" run s.sql > out.txt 2> log || fail "kcat | weir"
[ "$(tail -1 out.txt)" = "+U[x, 255]" ] || fail "kcat | weir: $(tail -1 out.txt)"
echo "  stdin: json (dead letter), raw, csv error position, kcat | weir run"
echo "test_kafka_source: passed"
