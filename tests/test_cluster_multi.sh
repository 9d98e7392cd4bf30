#!/usr/bin/env bash
# tests/test_cluster_multi.sh WEIR SOURCE_DIR - a statement set run by
# three weir processes over Kafka (docs/cluster.md), against librdkafka's
# mock cluster (weir-kafka-mock, next to the weir binary):
#   - three INSERTs from one Kafka source, each with a WHERE before its keyed
#     exchange (so each repartition topic carries filtered rows): a keyed
#     TUMBLE, a HOP keyed by an expression, and a TUMBLE without a key (all
#     rows in one partition of its topic) - three repartition topics;
#   - uneven bounded ends: the source's partition 2 holds a few rows that
#     end early in event time, so the process that reads it ends its input
#     long before the others (its end-of-input markers leave it out of the
#     downstream watermarks, which then follow the other producers);
#   - first without checkpoints (print sinks), then with checkpoints across
#     the processes (the docs' three-process start with
#     state.checkpoints.dir, a control topic, and exactly-once file sinks,
#     each process in its own folder): the union of the three processes' output equals the
#     single-process run of the same script, row for row, and no row is
#     dropped as late.
# Seeded (WEIR_CLUSTER_SEED), WEIR_CLUSTER_MULTI_ROWS rows (default 24000).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_cluster_multi: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_CLUSTER_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_MULTI_ROWS:-24000}
echo "test_cluster_multi: seed $SEED (WEIR_CLUSTER_SEED), $ROWS rows"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-multi
fail() { echo "FAIL: $*"; for f in p*/log single.log; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done; exit 1; }

# The statement set; BOOT and SINK are filled in below.
cat > job.sql.in <<'EOF'
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'src', 'properties.bootstrap.servers' = 'BOOT',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE w_out (k STRING, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH (SINK_W);
CREATE TABLE h_out (m BIGINT, ws TIMESTAMP(3), n BIGINT, mx BIGINT) WITH (SINK_H);
CREATE TABLE g_out (ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH (SINK_G);
EXECUTE STATEMENT SET BEGIN
INSERT INTO w_out SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v % 3 <> 0
GROUP BY k, window_start, window_end;
INSERT INTO h_out SELECT v % 7, window_start, COUNT(*), MAX(v)
FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) WHERE k <> 'k3'
GROUP BY v % 7, window_start, window_end;
INSERT INTO g_out SELECT window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '30' SECOND)) WHERE v < 90
GROUP BY window_start, window_end;
END;
EOF
# make_job FILE print|files: the script with print sinks (one identifier
# each) or exactly-once file sinks (folders out_w, out_h, out_g in the
# process's working directory: processes on one machine each need their own,
# as a folder is locked by the process that commits to it).
make_job() {
    local q sinks=()
    for q in w h g; do
        if [ "$2" = print ]; then
            sinks+=("'connector' = 'print', 'print-identifier' = '$q'")
        else
            sinks+=("'connector' = 'filesystem', 'path' = 'out_$q', 'format' = 'csv'")
        fi
    done
    sed "s|BOOT|${B:-localhost:1}|; s|SINK_W|${sinks[0]}|; s|SINK_H|${sinks[1]}|; s|SINK_G|${sinks[2]}|" job.sql.in > "$1"
}

# The repartition topics, <job>-<operator>-<node id>-repartition: the node
# ids are those of the logical plan's WindowAggregate lines.
make_job plan.sql print
"$WEIR" explain plan.sql > plan.txt 2>&1 || { cat plan.txt; fail "weir explain failed"; }
mapfile -t OPS < <(sed -n 's/^ *WindowAggregate\[\([0-9]*\)\]: TUMBLE .*/tumbling_window-\1/p;
                               s/^ *WindowAggregate\[\([0-9]*\)\]: HOP .*/hopping_window-\1/p' plan.txt)
[ "${#OPS[@]}" -eq 3 ] || { cat plan.txt; fail "expected three window aggregations in the plan, found ${#OPS[@]}"; }
topics=(src:3 multi-control:1 eo-control:1)
for op in "${OPS[@]}"; do topics+=("multi-$op-repartition:3" "eo-$op-repartition:3"); done
"$MOCK" -f boot "${topics[@]}" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)

# Partitions 0 and 1: ROWS rows each over ~ROWS/20 s of event time, each
# record within 700 ms of its partition's maximum (never late with a 2 s
# delay); partition 2: 150 rows over its first 3 s only.
awk -v n="$ROWS" -v seed="$SEED" 'BEGIN { srand(seed); base = 1700000000000;
    for (i = 0; i < n; i++) { p = i % 2; ts = base + int(i / 2) * 100 + int(rand() * 700);
        printf "%d\t{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%.0f}\n", p, int(rand() * 30), int(rand() * 100), ts }
    for (i = 0; i < 150; i++)
        printf "2\t{\"k\":\"k%d\",\"v\":%d,\"ts_ms\":%.0f}\n", int(rand() * 30), int(rand() * 100), base + i * 20 }' > data.tsv
for p in 0 1 2; do
    awk -F'\t' -v p=$p '$1 == p { print $2 }' data.tsv | kcat -P -b "$B" -t src -p $p || fail "kcat could not produce"
done

make_job print.sql print
make_job files.sql files
"$WEIR" run print.sql -D rest.enabled=false > single.txt 2> single.log || fail "the single-process run"
sort single.txt > want.txt
for q in w h g; do grep -q "^$q> " want.txt || fail "the single-process run printed nothing for $q"; done
grep -q "late rows dropped" single.log && fail "the single-process run dropped late rows"

# start NAME INDEX JOB [-D ...]: process INDEX of 3 in folder pNAME-INDEX
start() {
    local name=$1 i=$2 job=$3
    shift 3
    mkdir -p "p$name-$i"
    (cd "p$name-$i" && exec "$WEIR" run "../$job" -D rest.enabled=false -D pipeline.name="$name" \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=3 \
        -D weir.cluster.process-index="$i" "$@" > out 2> log) &
    pids+=($!)
    last_pid=$!
}

# ---- 1. print sinks, no checkpoints ----
start multi 0 print.sql; a=$last_pid
start multi 1 print.sql; b=$last_pid
start multi 2 print.sql; c=$last_pid
cluster_wait_all $a $b $c
cat pmulti-*/out | sort > got1.txt
diff want.txt got1.txt > diff1.txt || { head diff1.txt; fail "3 processes differ from one"; }
grep -q "late rows dropped" pmulti-*/log && fail "3 processes dropped late rows"
for i in 0 1 2; do
    [ "$(grep -c "source repartition-reader" "pmulti-$i/log")" -ge 1 ] || fail "process $i read no repartition topic"
done
echo "  3 processes, 3 INSERTs, uneven ends: $(wc -l < got1.txt) rows, equal to one process"

# ---- 2. checkpoints across the processes, exactly-once files ----
# visible DIR...: the committed rows of the sinks in these working directories
visible() {
    local d q
    for d in "$@"; do
        for q in w h g; do
            find "$d/out_$q" -maxdepth 1 -type f ! -name '.*' -exec sed "s/^/$q,/" {} + 2>/dev/null
        done
    done | LC_ALL=C sort
}
"$WEIR" run files.sql -D rest.enabled=false > /dev/null 2> single2.log || fail "the single-process run with files"
visible . > want2.txt
[ "$(wc -l < want2.txt)" -eq "$(wc -l < want.txt)" ] || fail "the file sinks hold $(wc -l < want2.txt) rows, print $(wc -l < want.txt)"
rm -rf out_*
CK=(-D state.checkpoints.dir="$T/ck" -D execution.checkpointing.interval=200ms)
start eo 0 files.sql "${CK[@]}"; a=$last_pid
start eo 1 files.sql "${CK[@]}"; b=$last_pid
start eo 2 files.sql "${CK[@]}"; c=$last_pid
cluster_wait_all $a $b $c
visible peo-0 peo-1 peo-2 > got2.txt
diff want2.txt got2.txt > diff2.txt || { head diff2.txt; fail "3 processes with checkpoints differ from one"; }
[ -z "$(find peo-*/out_* -name '.*' ! -name .weir.lock -type f)" ] || fail "hidden part files left behind"
for i in 0 1 2; do
    [ -d "ck/process-$i" ] || fail "process $i wrote no checkpoint part"
done
echo "  with checkpoints across the processes: $(wc -l < got2.txt) rows committed, equal to one process"
echo "test_cluster_multi: OK"
