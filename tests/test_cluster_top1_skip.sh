#!/usr/bin/env bash
# tests/test_cluster_top1_skip.sh WEIR SOURCE_DIR - a regular join that
# feeds a Top-1 on its key skips the rows the Top-1 would drop only when
# the two share a subtask (planner/top1_skip.c). In a job run by several
# processes (weir.cluster.bootstrap-servers set, docs/cluster.md) every
# keyed exchange is a repartition topic, the one into the Top-1 too, so
# the planner makes no link there: EXPLAIN does not say "skips for Join",
# the join stores every row (no "neither joined nor stored" in the
# summary) and its fingerprint has no "top1 skip" field, while the same
# job run locally skips rows and says so; both give the same final table.
# Against librdkafka's mock cluster over TCP (weir-kafka-mock).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_top1_skip: SKIPPED (no weir-kafka-mock)"; exit 0
fi
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-top1
fail() {
    echo "FAIL: $*"
    for f in log*; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

mkdir -p oin min
awk 'BEGIN { for (i = 0; i < 40; i++) printf "%d,%d\n", i, i * 10 }' > oin/1.csv
awk 'BEGIN { srand(16); for (n = 0; n < 3000; n++) printf "%d,%d,%d\n", int(rand() * 40), int(rand() * 1000), n }' > min/1.csv
cat > job.sql <<'SQL'
CREATE TABLE o (id BIGINT, lo BIGINT) WITH ('connector' = 'filesystem', 'path' = 'oin', 'format' = 'csv');
CREATE TABLE m (id BIGINT, p BIGINT, t BIGINT) WITH ('connector' = 'filesystem', 'path' = 'min', 'format' = 'csv');
CREATE TABLE best (id BIGINT, p BIGINT, t BIGINT) WITH ('connector' = 'print');
INSERT INTO best SELECT id, p, t FROM (
  SELECT o.id, m.p, m.t, ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY m.p DESC, m.t) AS rn
  FROM o JOIN m ON o.id = m.id) WHERE rn <= 1;
SQL
# the table a print changelog describes, sorted
final() {
    awk '/^\+[IU]\[/ { n[substr($0, 4)]++ } /^-[UD]\[/ { n[substr($0, 4)]-- }
         END { for (r in n) for (i = 0; i < n[r]; i++) print r }' "$1" | sort
}

# EXPLAIN: the link with the option unset or empty, none with it set
"$WEIR" explain job.sql > explain.local 2>&1 || fail "explain failed: $(tail -3 explain.local)"
grep -q "skips for Join" explain.local || fail "the local job's Rank does not skip for its join: $(cat explain.local)"
"$WEIR" explain job.sql -D weir.cluster.bootstrap-servers= > explain.empty 2>&1 || fail "explain failed"
grep -q "skips for Join" explain.empty || fail "an empty weir.cluster.bootstrap-servers took the skipping away"
"$WEIR" explain job.sql -D weir.cluster.bootstrap-servers=localhost:9 > explain.cluster 2>&1 || fail "explain failed"
if grep -q "skips for" explain.cluster; then fail "a cluster job's Rank says it skips: $(grep 'Rank\[' explain.cluster)"; fi

# locally: rows skipped, "top1 skip" in the join's fingerprint
"$WEIR" run job.sql -D rest.enabled=false -D state.checkpoints.dir=local > out.local 2> log.local ||
    fail "the local run failed"
grep -q "neither joined nor stored" log.local || fail "the local run skipped no rows"
grep -aqF "top1 skip: right" local/chk-*/_metadata || fail "the local join's fingerprint does not say it skipped"

# one process of a cluster job, with checkpoints: every row stored, no "top1 skip"
cluster_mock t1-control:1 t1-Join-3-repartition:1 t1-Join-3-in1-repartition:1 t1-Rank-5-repartition:1
cluster_start t1 job.sql 0 1 -D state.checkpoints.dir=ck -D execution.checkpointing.interval=100ms
cluster_finish 0
if grep -q "neither joined nor stored" log.t1.0; then fail "the cluster job's join says it skipped rows"; fi
ls ck/process-0/chk-*/_metadata > /dev/null 2>&1 || fail "the cluster job took no checkpoint"
if grep -aqF "top1 skip" ck/process-0/chk-*/_metadata; then
    fail "the cluster job's join claims in its fingerprint that it did not store rows"
fi
final out.local > want.txt
final out.t1.0 > got.txt
[ -s want.txt ] || fail "the local run kept no rows"
diff want.txt got.txt > diff.txt || fail "the cluster job's final table differs from the local run's: $(head -5 diff.txt)"
echo "  local: rows skipped; cluster: no link, every row stored; $(wc -l < got.txt) kept rows, the same"
echo "test_cluster_top1_skip: OK"
