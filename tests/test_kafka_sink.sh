#!/usr/bin/env bash
# tests/test_kafka_sink.sh WEIR SOURCE_DIR - the 'kafka' and 'upsert-kafka'
# sinks against weir-kafka-mock (a real Kafka protocol server over TCP),
# read back with kcat:
# - every format (json, csv, raw, debezium-json), key.fields, key.fields-
#   prefix with value.fields-include = EXCEPT_KEY, each partitioner, each
#   delivery guarantee (none as a smoke test);
# - upsert-kafka: +I/+U as values, -D as tombstones, -U dropped, with and
#   without 'sink.buffer-flush.*';
# - a randomized differential test: random rows -> GROUP BY (an updating
#   query) -> upsert-kafka; the compacted topic (last value per key) must
#   equal what python3 computes from the same rows
#   (WEIR_KAFKA_DIFF_SEED replays a case, WEIR_KAFKA_DIFF_CASES sets the count);
# - every option's error path, with its message.
# Crash recovery is in test_kafka_sink_crash.sh.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
SEED=${WEIR_KAFKA_DIFF_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
CASES=${WEIR_KAFKA_DIFF_CASES:-3}
echo "test_kafka_sink: seed $SEED (WEIR_KAFKA_DIFF_SEED=$SEED replays it), $CASES differential cases"
[ -x "$MOCK" ] || { echo "SKIP: no weir-kafka-mock (built without librdkafka)"; exit 0; }
command -v kcat > /dev/null || { echo "FAIL: kcat is not installed (scripts/install-deps.sh)"; exit 1; }
T=$(mktemp -d /tmp/weir-kafka-sink-XXXXXX)
MOCK_PID=
cleanup() { [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2> /dev/null; wait 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }

"$MOCK" -f bootstrap t_json:1 t_kp:1 t_csv:1 t_raw:1 t_dbz:1 t_key:2 t_fixed:3 t_rr:3 t_none:1 \
    t_up:2 t_upbuf:2 t_diff:3 > mock.log 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s bootstrap ] && break; sleep 0.1; done
[ -s bootstrap ] || fail "the mock did not start"
BS=$(cat bootstrap)
# consume TOPIC [FORMAT]: every message of the topic, one per line
consume() { kcat -b "$BS" -C -t "$1" -e -q -Z -f "${2:-%p|%k|%s\n}" 2> /dev/null; }
run() { "$WEIR" run "$1" > out.txt 2> log || fail "$1: exit $?"; }

# 6 rows; v is NULL in one
cat > in.csv <<'EOF'
a,1,x1
b,2,x2
a,3,x3
c,,x4
b,5,x5
a,6,x6
EOF
SRC="CREATE TABLE src (k STRING, v BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');"
K="'connector' = 'kafka', 'properties.bootstrap.servers' = '$BS'"

# ---- formats ----
cat > fmt.sql <<EOF
$SRC
CREATE TABLE j (k STRING, v BIGINT, s STRING) WITH ($K, 'topic' = 't_json', 'format' = 'json');
CREATE TABLE c (k STRING, v BIGINT, s STRING) WITH ($K, 'topic' = 't_csv', 'value.format' = 'csv',
  'value.csv.field-delimiter' = ';');
CREATE TABLE r (s STRING) WITH ($K, 'topic' = 't_raw', 'format' = 'raw');
CREATE TABLE kk (k STRING, v BIGINT, s STRING) WITH ($K, 'topic' = 't_key', 'key.format' = 'json',
  'key.fields' = 'k', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE kp (k_name STRING, v BIGINT) WITH ($K, 'topic' = 't_kp', 'key.format' = 'json',
  'key.fields' = 'k_name', 'key.fields-prefix' = 'k_', 'value.fields-include' = 'EXCEPT_KEY', 'format' = 'csv');
CREATE TABLE none (k STRING, v BIGINT) WITH ($K, 'topic' = 't_none', 'format' = 'csv',
  'sink.delivery-guarantee' = 'none');
INSERT INTO j SELECT * FROM src;
INSERT INTO c SELECT * FROM src;
INSERT INTO r SELECT s FROM src;
INSERT INTO kk SELECT * FROM src;
INSERT INTO kp SELECT k, v FROM src WHERE v > 4;
INSERT INTO none SELECT k, v FROM src;
EOF
run fmt.sql
[ "$(consume t_json)" = '0|NULL|{"k":"a","v":1,"s":"x1"}
0|NULL|{"k":"b","v":2,"s":"x2"}
0|NULL|{"k":"a","v":3,"s":"x3"}
0|NULL|{"k":"c","v":null,"s":"x4"}
0|NULL|{"k":"b","v":5,"s":"x5"}
0|NULL|{"k":"a","v":6,"s":"x6"}' ] || fail "json: $(consume t_json)"
[ "$(consume t_csv '%s\n' | tr '\n' ' ')" = 'a;1;x1 b;2;x2 a;3;x3 c;;x4 b;5;x5 a;6;x6 ' ] ||
    fail "csv: $(consume t_csv '%s\n')"
[ "$(consume t_raw '%s\n' | tr '\n' ' ')" = 'x1 x2 x3 x4 x5 x6 ' ] || fail "raw: $(consume t_raw)"
[ "$(consume t_kp '%k|%s\n' | tr '\n' ' ')" = '{"name":"b"}|5 {"name":"a"}|6 ' ] || fail "key.fields-prefix: $(consume t_kp)"
[ "$(consume t_none '%s\n' | wc -l)" = 6 ] || fail "none: $(consume t_none)"
# keyed: the value leaves the key out; one key always lands in one partition
consume t_key '%k|%s|%p\n' | sort > key.txt
[ "$(cut -d'|' -f1,2 key.txt | tr '\n' ' ')" = '{"k":"a"}|{"v":1,"s":"x1"} {"k":"a"}|{"v":3,"s":"x3"} {"k":"a"}|{"v":6,"s":"x6"} {"k":"b"}|{"v":2,"s":"x2"} {"k":"b"}|{"v":5,"s":"x5"} {"k":"c"}|{"v":null,"s":"x4"} ' ] ||
    fail "key.fields: $(cat key.txt)"
[ "$(awk -F'|' '{print $1, $3}' key.txt | sort -u | cut -d' ' -f1 | uniq -d)" = "" ] ||
    fail "a key was written to two partitions: $(cat key.txt)"
echo "  formats: ok"

# ---- partitioners (parallelism 2: subtask i of 'fixed' writes partition i;
# 5000 rows are several batches, which the exchange spreads over both) ----
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "k%d,%d,s\n", i % 7, i }' > many.csv
cat > part.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'many.csv', 'format' = 'csv');
CREATE TABLE f (k STRING, v BIGINT) WITH ($K, 'topic' = 't_fixed', 'format' = 'csv',
  'sink.partitioner' = 'fixed', 'sink.parallelism' = '2', 'key.format' = 'raw', 'key.fields' = 'k');
CREATE TABLE rr (k STRING, v BIGINT) WITH ($K, 'topic' = 't_rr', 'format' = 'csv',
  'sink.partitioner' = 'round-robin');
INSERT INTO f SELECT k, v FROM src;
INSERT INTO rr SELECT k, v FROM src;
EOF
run part.sql
[ "$(consume t_fixed '%p\n' | sort -u | tr '\n' ' ')" = '0 1 ' ] ||
    fail "fixed: partitions $(consume t_fixed '%p\n' | sort | uniq -c)"
[ "$(consume t_fixed '%s\n' | wc -l)" = 5000 ] || fail "fixed: $(consume t_fixed '%s\n' | wc -l) messages"
[ "$(consume t_rr '%p\n' | sort | uniq -c | awk '{print $1}' | sort | tr '\n' ' ')" = '1666 1667 1667 ' ] ||
    fail "round-robin: $(consume t_rr '%p\n' | sort | uniq -c)"
echo "  partitioners: ok"

# ---- changelogs: debezium-json on 'kafka', upserts and tombstones on 'upsert-kafka' ----
# SUM per key, then keep keys whose sum is below 6: 'a' reaches 10 and is
# deleted, 'b' (7) too, 'c' (NULL sum) stays.
UPQ="SELECT k, SUM(v) AS total, COUNT(*) AS n FROM src GROUP BY k"
cat > up.sql <<EOF
$SRC
CREATE TABLE d (k STRING, total BIGINT, n BIGINT) WITH ($K, 'topic' = 't_dbz', 'value.format' = 'debezium-json');
CREATE TABLE u (k STRING, total BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 't_up',
        'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE ub (k STRING, total BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 't_upbuf',
        'key.format' = 'csv', 'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY',
        'sink.buffer-flush.max-rows' = '100', 'sink.buffer-flush.interval' = '1 h');
INSERT INTO d $UPQ;
INSERT INTO u SELECT k, total, n FROM ($UPQ) WHERE total IS NULL OR total < 6;
INSERT INTO ub $UPQ;
EOF
run up.sql
# debezium: every change, -U as a delete of the old row
consume t_dbz '%s\n' > dbz.txt
grep -q '"before":null,"after":{"k":"a","total":1,"n":1},"op":"c"' dbz.txt &&
    grep -q '"before":{"k":"a","total":1,"n":1},"after":null,"op":"d"' dbz.txt &&
    grep -q '"after":{"k":"a","total":10,"n":3}' dbz.txt || fail "debezium-json: $(cat dbz.txt)"
# upsert: the last message of each key; a and b end in tombstones
consume t_up '%k|%s\n' > up.txt
python3 - up.txt <<'EOF' || fail "upsert-kafka: $(cat up.txt)"
import sys
last = {}
for line in open(sys.argv[1]):
    k, v = line.rstrip('\n').split('|', 1)
    last[k] = v
want = {'{"k":"a"}': 'NULL', '{"k":"b"}': 'NULL', '{"k":"c"}': '{"k":"c","total":null,"n":1}'}
assert last == want, last
vals = [l.rstrip('\n').split('|', 1)[1] for l in open(sys.argv[1])]
assert vals.count('NULL') == 2, vals   # one tombstone per deletion, -U rows dropped
EOF
# buffered: reduced by key before writing: one message per key
[ "$(consume t_upbuf '%k|%s\n' | sort | tr '\n' ' ')" = 'a|10,3 b|7,2 c|,1 ' ] ||
    fail "upsert-kafka buffer: $(consume t_upbuf '%k|%s\n')"
echo "  changelogs: ok"

# ---- differential: random rows -> GROUP BY -> upsert-kafka vs python3 ----
for ((c = 0; c < CASES; c++)); do
    cs=$((SEED + c))
    python3 - "$cs" > diff.csv <<'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
keys = r.randint(1, 40)
for i in range(r.randint(50, 3000)):
    v = '' if r.random() < 0.05 else str(r.randint(-1000, 1000))
    print('k%d,%s' % (r.randint(0, keys), v))
EOF
    buf=""
    [ $((cs % 2)) = 1 ] && buf=", 'sink.buffer-flush.max-rows' = '$((cs % 50 + 1))', 'sink.buffer-flush.interval' = '1 s'"
    topic=t_diff_$c
    cat > diff.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'diff.csv', 'format' = 'csv');
CREATE TABLE u (k STRING, s BIGINT, n BIGINT, mx BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = '$topic',
        'key.format' = 'raw', 'value.format' = 'json' $buf, 'sink.parallelism' = '2');
INSERT INTO u SELECT k, SUM(v), COUNT(v), MAX(v) FROM src GROUP BY k;
EOF
    "$WEIR" run diff.sql -D parallelism.default=2 > /dev/null 2> log || fail "differential case seed $cs: exit $?"
    consume "$topic" '%k|%s\n' > got.txt
    python3 - diff.csv got.txt <<'EOF' || fail "differential case seed $cs (WEIR_KAFKA_DIFF_SEED=$cs)"
import json, sys
agg = {}
for line in open(sys.argv[1]):
    k, v = line.rstrip('\n').split(',')
    a = agg.setdefault(k, [None, 0, None])
    if v != '':
        v = int(v)
        a[0] = v if a[0] is None else a[0] + v
        a[1] += 1
        a[2] = v if a[2] is None else max(a[2], v)
want = {k: {'k': k, 's': a[0], 'n': a[1], 'mx': a[2]} for k, a in agg.items()}
got = {}
for line in open(sys.argv[2]):
    k, v = line.rstrip('\n').split('|', 1)
    got[k] = None if v == 'NULL' else json.loads(v)
if got != want:
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            print('key', k, 'weir', got.get(k), 'python', want.get(k))
    sys.exit(1)
EOF
done
echo "  differential: $CASES cases ok"

# ---- error paths: each refused before anything runs, with its reason ----
# expect_error SQL-WITH-CLAUSE TEXT [COLUMNS] [QUERY]
expect_error() {
    local cols=${3:-"k STRING, v BIGINT"} q=${4:-"SELECT k, v FROM src"}
    printf "%s\nCREATE TABLE o (%s) WITH (%s);\nINSERT INTO o %s;\n" "$SRC" "$cols" "$1" "$q" > err.sql
    "$WEIR" run err.sql -D execution.checkpointing.interval=1s > out.txt 2> log && fail "accepted: $1"
    grep -qF -- "$2" log || fail "expected '$2' for: $1; got: $(cat log)"
}
T1="$K, 'topic' = 't_json'"
expect_error "$T1, 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once'" \
    "needs option 'sink.transactional-id-prefix'"
expect_error "$T1, 'format' = 'json', 'sink.delivery-guarantee' = 'exactly_once'" \
    "expected 'none', 'at-least-once' or 'exactly-once', found 'exactly_once'"
expect_error "'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 't_up', 'key.format' = 'json', 'value.format' = 'json'" \
    "connector 'upsert-kafka' needs a PRIMARY KEY"
expect_error "$T1, 'format' = 'json'" \
    "produces an updating result" "k STRING, v BIGINT" "SELECT k, COUNT(*) FROM src GROUP BY k"
expect_error "$T1, 'format' = 'json'" "does not take a PRIMARY KEY" "k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED"
expect_error "$T1, 'format' = 'json', 'sink.partitoner' = 'fixed'" "did you mean 'sink.partitioner'"
expect_error "$T1, 'format' = 'json', 'sink.partitioner' = 'hash'" "expected 'default', 'fixed' or 'round-robin'"
expect_error "$T1, 'format' = 'json', 'key.format' = 'json'" "option 'key.format' needs 'key.fields'"
expect_error "$T1, 'format' = 'json', 'key.format' = 'json', 'key.fields' = 'k;nope'" "'nope' is not a column"
expect_error "$T1, 'format' = 'raw'" "the 'raw' format writes exactly one column"
expect_error "$T1, 'format' = 'avro'" "unsupported format 'avro'"
expect_error "$K, 'format' = 'json'" "needs option 'topic'"
expect_error "'connector' = 'kafka', 'topic' = 't', 'format' = 'json'" "needs option 'properties.bootstrap.servers'"
expect_error "$T1, 'format' = 'json', 'properties.acks' = 'maybe'" "option 'properties.acks'"
expect_error "$T1, 'format' = 'json', 'value.fields-include' = 'NONE'" "expected 'ALL' or 'EXCEPT_KEY'"
expect_error "$T1, 'format' = 'json', 'key.format' = 'json', 'key.fields' = 'k', 'key.fields-prefix' = 'k_', 'value.fields-include' = 'EXCEPT_KEY'" \
    "key column 'k' does not start with the prefix 'k_'"
expect_error "$T1, 'format' = 'json', 'key.format' = 'json', 'key.fields' = 'k_a', 'key.fields-prefix' = 'k_'" \
    "option 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'" "k_a STRING, v BIGINT"
expect_error "'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 't_up', 'key.format' = 'json', 'value.format' = 'json', 'sink.buffer-flush.max-rows' = '10'" \
    "must both be set above zero" "k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED"
expect_error "'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 't_up', 'key.format' = 'json', 'value.format' = 'debezium-json'" \
    "'debezium-json' cannot be a value format here" "k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED"
# exactly-once without checkpoints
printf "%s\nCREATE TABLE o (k STRING) WITH (%s);\nINSERT INTO o SELECT k FROM src;\n" "$SRC" \
    "$T1, 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p'" > err.sql
"$WEIR" run err.sql > out.txt 2> log && fail "exactly-once without checkpoints was accepted"
grep -q "this job takes no checkpoints" log || fail "exactly-once without checkpoints: $(cat log)"
echo "  error paths: ok"
echo "test_kafka_sink: PASS"
