#!/usr/bin/env bash
# tests/test_cluster.sh WEIR SOURCE_DIR - one job run by several weir
# processes over Kafka (docs/cluster.md), against librdkafka's mock cluster
# over TCP (weir-kafka-mock, next to the weir binary).
#   1. a windowed job with a keyed exchange, 3 processes: the union of their
#      outputs equals the single-process run, and both equal a Python
#      oracle (tests/cluster_oracle.py) that shares no code with weir;
#   2. the same with 2 subtasks per process and 5 repartition partitions
#      (uneven key-group ranges), one process started only after another
#      has written all of its share (its rows, final watermark and end
#      markers are in the topic): the downstream watermark is the minimum
#      over the producers, so the late starters' rows, minutes behind in
#      event time, are not late;
#      GET /cluster on the REST endpoint shows the membership and which
#      partitions, key groups and source subtasks each process owns;
#   3. a rerun on the same topics with a new weir.cluster.epoch: the
#      earlier run's records are dropped, the output is the same again;
#   4. long rows: a batch larger than 900 KiB goes as several records;
#   5. a late start changes no late-data decision: a process whose rows
#      (some of them late) and end are all in the topic before the other
#      process starts finds the same rows late as one process does (its
#      reader waits to hear from every producer before it reads on);
#   6. late rows at 2 subtasks a process: with 2 processes x 2 subtasks,
#      an operator subtask fed by two partitions finds the rows late that
#      one process finds late (one reader a process);
#   7. errors: a missing repartition topic, a process index out of range,
#      no job name, checkpoints without an interval or a control topic,
#      savepoints (not across processes yet). Checkpoints and crashes:
#      tests/test_cluster_crash.sh.
# Seeded (WEIR_CLUSTER_SEED), WEIR_CLUSTER_ROWS rows (default 30000).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_cluster: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_CLUSTER_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_ROWS:-30000}
echo "test_cluster: seed $SEED (WEIR_CLUSTER_SEED), $ROWS rows"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster
pids=()
fail() { echo "FAIL: $*"; for f in p*/log single.log; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done; exit 1; }

# Repartition topics: <pipeline.name>-<operator>-<node id>-repartition.
RT=tumbling_window-2-repartition
cluster_mock src:6 "one-$RT:3" "two-$RT:5" long-tumbling_window-2-repartition:1 "stag-$RT:1" "lat-$RT:4"

# end_markers TOPIC: how many END markers (type 3) TOPIC holds
end_markers() {
    kcat -C -b "$B" -t "$1" -o beginning -e -q -f '%R%s' 2> /dev/null | python3 -c '
import struct, sys
d = sys.stdin.buffer.read()
i = n = 0
while i + 4 <= len(d):
    (m,) = struct.unpack(">I", d[i:i + 4])
    n += m >= 2 and d[i + 5] == 3
    i += 4 + m
print(n)'
}

python3 "$SRC/tests/cluster_oracle.py" gen "$SEED" "$ROWS" 6 > data.tsv || fail "oracle gen"
for p in 0 1 2 3 4 5; do
    awk -F'\t' -v p=$p '$1 == p { print $2 }' data.tsv | kcat -P -b "$B" -t src -p $p ||
        fail "kcat could not produce"
done
python3 "$SRC/tests/cluster_oracle.py" expect data.tsv 2000 10000 | sort > want.txt

cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'src', 'properties.bootstrap.servers' = '$B',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
EOF

# ---- 1. three processes equal one, and the oracle ----
"$WEIR" run job.sql > single.txt 2> single.log || fail "single-process run"
sort single.txt > single.sorted
diff want.txt single.sorted > /dev/null || fail "the single-process run differs from the oracle"

# start NAME INDEX N [-D ...]: process INDEX of N in folder NAME-INDEX
start() {
    local name=$1 i=$2 n=$3
    shift 3
    mkdir -p "p$name-$i"
    (cd "p$name-$i" && exec "$WEIR" run ../job.sql -D rest.enabled=false -D pipeline.name="$name" \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes="$n" \
        -D weir.cluster.process-index="$i" "$@" > out 2> log) &
    pids+=($!)
    last_pid=$!
}
start one 0 3; a=$last_pid
start one 1 3; b=$last_pid
start one 2 3; c=$last_pid
cluster_wait_all $a $b $c
cat pone-*/out | sort > got1.txt
diff want.txt got1.txt > diff1.txt || { head diff1.txt; fail "3 processes differ from one"; }
grep -q "late rows dropped" pone-*/log && fail "3 processes dropped late rows"
for i in 0 1 2; do
    grep -q "source repartition-reader" "pone-$i/log" || fail "process $i read no repartition topic"
done
echo "  3 processes: $(wc -l < got1.txt) windows, equal to one process and to the oracle"

# ---- 2. two subtasks each, 5 partitions, staggered start ----
# Process 0 runs alone until its whole share is in the topic: an END
# marker from each of its 2 writer subtasks in each of the 5 partitions.
start two 0 3 -D weir.cluster.repartition-partitions=5 -D parallelism.default=2 \
    -D rest.enabled=true -D rest.port=0; a=$last_pid
for ((k = 0; k < 1200; k++)); do
    ends=$(end_markers "two-$RT")
    [ "$ends" -ge 10 ] && break
    kill -0 $a 2> /dev/null || fail "process 0 ended alone"
    sleep 0.1
done
[ "$ends" -ge 10 ] || fail "process 0 did not write its share ($ends end markers)"
# GET /cluster: the membership and what each process owns. With 2
# subtasks a process, partition r is read in process (r mod 6) / 2, and
# holds key groups [ceil(128 r / 5), ceil(128 (r + 1) / 5)).
url=$(grep -o 'http://[0-9.:]*/' ptwo-0/log | head -1)
[ -n "$url" ] || fail "process 0 shows no REST address"
curl -sf "${url}cluster" > cluster.json || fail "GET /cluster"
python3 - cluster.json "two-$RT" <<'PY' || fail "GET /cluster: wrong membership"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["group"] == "two" and d["processes"] == 3 and d["self"] == 0, d
assert [m["index"] for m in d["members"]] == [0, 1, 2]
want = {0: [0, 1], 1: [2, 3], 2: [4]}
for m in d["members"]:
    (x,) = m["repartition"]
    assert x["topic"] == sys.argv[2], x
    assert [p["partition"] for p in x["partitions"]] == want[m["index"]], x
    for p in x["partitions"]:
        r = p["partition"]
        assert p["key_groups"] == [-(-128 * r // 5), -(-128 * (r + 1) // 5) - 1], p
    (s,) = m["sources"]
    assert s["subtasks"] == [2 * m["index"], 2 * m["index"] + 1] and s["of"] == 6, s
PY
start two 1 3 -D weir.cluster.repartition-partitions=5 -D parallelism.default=2; b=$last_pid
start two 2 3 -D weir.cluster.repartition-partitions=5 -D parallelism.default=2; c=$last_pid
cluster_wait_all $a $b $c
# a print sink of parallelism 2 prefixes its subtask ("1> ")
cat ptwo-*/out | sed "s/^[0-9]*> //" | sort > got2.txt
diff want.txt got2.txt > diff2.txt || { head diff2.txt; fail "staggered processes differ"; }
grep -q "late rows dropped" ptwo-*/log && fail "staggered processes dropped late rows"
echo "  2 subtasks x 3 processes, 5 partitions, staggered start: equal"

# ---- 3. a rerun on the same topics with a new epoch ----
rm -rf pone-*
start one 0 3 -D weir.cluster.epoch=2; a=$last_pid
start one 1 3 -D weir.cluster.epoch=2; b=$last_pid
start one 2 3 -D weir.cluster.epoch=2; c=$last_pid
cluster_wait_all $a $b $c
cat pone-*/out | sort > got3.txt
diff want.txt got3.txt > /dev/null || fail "the rerun with epoch 2 differs"
echo "  rerun with a new epoch on the same topics: equal"

# ---- 4. long rows: records stay under 900 KiB ----
cat > long.sql <<EOF
CREATE TABLE g (id BIGINT, k BIGINT, s STRING, ts AS TO_TIMESTAMP_LTZ(id, 3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '0', 'fields.id.end' = '1999', 'fields.k.min' = '0', 'fields.k.max' = '9',
  'fields.s.length' = '1500');
CREATE TABLE o (k BIGINT, n BIGINT, m STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT k, COUNT(*), MAX(s)
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
timeout 60 "$WEIR" run long.sql -D rest.enabled=false > long1.txt 2> long1.log || fail "long rows, one process"
mkdir -p plong && (cd plong && timeout 60 "$WEIR" run ../long.sql -D rest.enabled=false -D pipeline.name=long \
    -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=1 -D weir.cluster.process-index=0 \
    > out 2> log) || fail "long rows, cluster"
diff <(sort long1.txt) <(sort plong/out) > /dev/null || fail "long rows: the cluster run differs"
big=$(kcat -C -b "$B" -t long-tumbling_window-2-repartition -o beginning -e -q -f '%S\n' 2> /dev/null |
    awk '$1 > max { max = $1 } END { print max + 0 }')
[ "$big" -gt 100000 ] && [ "$big" -le 921600 ] || fail "long rows: largest record $big bytes"
echo "  long rows (1.5 MB a batch): records of at most $big bytes, same output"

# ---- 5. a late start changes no late-data decision ----
# One file (one split, read by process 0), event time = the watermark:
# rows 5 (500 ms, after 4 000) and 8 (1 500 ms, after 6 000) are late.
printf '{"id":%d,"ts_ms":%d}\n' 1 1000 2 2000 3 3000 4 4000 5 500 6 5000 7 6000 8 1500 9 7000 > late_in.json
cat > stag.sql <<'EOF'
CREATE TABLE t (id BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '../late_in.json', 'format' = 'json');
CREATE TABLE late (id BIGINT, `watermark` TIMESTAMP(3), lateness_ms BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'late');
SET 'weir.late-records.table' = 'late';
CREATE TABLE o (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'o');
INSERT INTO o SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
EOF
{ for s in 1 2 3 4 5 6 7; do echo "o> +I[1970-01-01T00:00:0$s, 1]"; done
  echo "late> +I[5, 1970-01-01T00:00:04, 3500]"; echo "late> +I[8, 1970-01-01T00:00:06, 4500]"; } | sort > want_late.txt
# stag INDEX: process INDEX of 2, one partition (read by process 0)
stag() {
    mkdir -p "pstag-$1"
    (cd "pstag-$1" && exec "$WEIR" run ../stag.sql -D rest.enabled=false -D pipeline.name=stag \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=2 -D weir.cluster.process-index="$1" \
        -D weir.cluster.repartition-partitions=1 -D weir.batch-size=1 > out 2> log) &
    pids+=($!)
    last_pid=$!
}
stag 0; a=$last_pid
for ((k = 0; k < 1200; k++)); do
    [ "$(end_markers "stag-$RT")" -ge 1 ] && break
    kill -0 $a 2> /dev/null || fail "late start: process 0 ended alone"
    sleep 0.1
done
[ "$(end_markers "stag-$RT")" -ge 1 ] || fail "late start: process 0 did not end its input"
stag 1; b=$last_pid
cluster_wait_all $a $b
grep -q "source filesystem (task 0): 9 rows read" pstag-0/log || fail "late start: process 0 did not read the file"
cat pstag-*/out | sort > got_late.txt
diff want_late.txt got_late.txt > diff_late.txt || { cat diff_late.txt; fail "late start: other late rows than one process"; }
echo "  a process whose rows and end were in the topic before the other started: the same late rows"

# ---- 6. late rows at 2 subtasks a process ----
# One file (one split, read by process 0), 60 keys, event time = the
# watermark; after each 500 rows come 10 rows 5 s behind, all 120 late. With 4
# partitions and 2 subtasks a process, subtask 0 of the window operator in
# process 0 owns the key groups of partitions 0 and 1: the rows of both
# must meet the watermarks of the file's order, so the late rows are those
# one process finds late, whichever partition they are in. (Batches of one
# row make many records: with a reader subtask per operator subtask, as
# before, this failed in every one of 3 runs.)
python3 - > lat_in.json <<'PY'
ts = 0
for i in range(6000):
    ts += 2
    print('{"k":%d,"ts_ms":%d}' % (i % 60, ts))
    if i % 500 == 499:
        for j in range(10):
            print('{"k":%d,"ts_ms":%d}' % (j * 7 % 60, ts - 5000))
PY
sed -e 's/id BIGINT, ts_ms/k BIGINT, ts_ms/' -e "s#'../late_in.json'#'../lat_in.json'#" \
    -e 's/late (id BIGINT,/late (k BIGINT,/' \
    -e 's/^CREATE TABLE o (ws/CREATE TABLE o (k BIGINT, ws/' -e 's/SELECT window_start,/SELECT k, window_start,/' \
    -e 's/GROUP BY window_start/GROUP BY k, window_start/' stag.sql > lat.sql
mkdir -p lat-one && (cd lat-one && timeout 60 "$WEIR" run ../lat.sql -D rest.enabled=false \
    -D parallelism.default=2 > ../lat1.txt 2> log) || fail "late rows: one process"
sed "s/^\([a-z]*\):[0-9]*> /\1> /" lat1.txt | sort > want_lat.txt
[ "$(grep -c '^late> ' want_lat.txt)" -eq 120 ] || fail "late rows: one process found $(grep -c "^late> " want_lat.txt) late, not 120"
lat() {
    mkdir -p "plat-$1"
    (cd "plat-$1" && exec "$WEIR" run ../lat.sql -D rest.enabled=false -D pipeline.name=lat \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=2 -D weir.cluster.process-index="$1" \
        -D weir.cluster.repartition-partitions=4 -D parallelism.default=2 -D weir.batch-size=1 > out 2> log) &
    pids+=($!)
    last_pid=$!
}
lat 0; a=$last_pid
lat 1; b=$last_pid
cluster_wait_all $a $b
cat plat-*/out | sed "s/^\([a-z]*\):[0-9]*> /\1> /" | sort > got_lat.txt
diff want_lat.txt got_lat.txt > diff_lat.txt || { head diff_lat.txt; fail "late rows: 2 processes x 2 subtasks differ from one process"; }
echo "  2 processes x 2 subtasks, 4 partitions: the late rows of one process ($(grep -c '^late> ' got_lat.txt))"

# ---- 7. errors ----
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name=none -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=2 -D weir.cluster.process-index=0 > /dev/null 2> err.txt && fail "a missing topic ran"
grep -q "repartition topic 'none-$RT' must exist with 2 partitions" err.txt || { cat err.txt; fail "missing topic message"; }
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name=one -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=3 -D weir.cluster.process-index=3 > /dev/null 2> err.txt && fail "index 3 of 3 ran"
grep -q "weir.cluster.process-index: expected a whole number from 0 to 2, got '3'" err.txt ||
    { cat err.txt; fail "index message"; }
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=3 -D weir.cluster.process-index=0 > /dev/null 2> err.txt && fail "no name ran"
grep -q "set pipeline.name (or weir.cluster.group-id)" err.txt || { cat err.txt; fail "no name message"; }
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name=one -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=3 -D weir.cluster.process-index=0 -D state.checkpoints.dir=ck > /dev/null 2> err.txt &&
    fail "checkpoints without an interval in a cluster ran"
grep -q "execution.checkpointing.interval: a job run by several processes with state.checkpoints.dir needs an interval" \
    err.txt || { cat err.txt; fail "checkpoint interval message"; }
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name=one -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=3 -D weir.cluster.process-index=0 --from sp/savepoint-1 > /dev/null 2> err.txt &&
    fail "a savepoint restored in a cluster without checkpoints ran"
grep -q "execution.savepoint.path: a job run by several processes restores a savepoint through its checkpoints" \
    err.txt || { cat err.txt; fail "savepoint message"; }
timeout 60 "$WEIR" run job.sql -D rest.enabled=false -D pipeline.name=one -D weir.cluster.bootstrap-servers="$B" \
    -D weir.cluster.processes=3 -D weir.cluster.process-index=0 -D state.checkpoints.dir=ck \
    -D execution.checkpointing.interval=1s > /dev/null 2> err.txt && fail "checkpoints without a control topic ran"
grep -q "control topic 'one-control' (create it with one partition before the start) must exist with 1 partition" err.txt ||
    { cat err.txt; fail "control topic message"; }
echo "  errors: missing topic, index out of range, no name, checkpoints without interval or control topic, savepoints"
echo "test_cluster: OK"
