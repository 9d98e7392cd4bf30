#!/usr/bin/env bash
# tests/test_upsert_materialize_plan.sh WEIR SOURCE_DIR - where the planner
# puts the upsert materializer (table.exec.sink.upsert-materialize), read
# from EXPLAIN: under AUTO an upsert sink (jdbc with a PRIMARY KEY) gets one
# when no upsert key of the query is within its PRIMARY KEY (a join hashed
# by another column, a GROUP BY wider than the key) and none when one is
# (GROUP BY k into PRIMARY KEY (k), a changelog source's key renamed); a
# print table (no upsert sink) gets none; NONE never, FORCE always (an
# updating query into a PRIMARY KEY); a bad value is refused at its SET.
# Keys through joins, Top-N and deduplication, as Flink derives them: a
# side's keys survive the exchange by its join key only when they contain
# it; they stay keys of the join when the other side's join key holds a
# key of its own (one row there per join key value) and that side pads no
# NULLs for them (LEFT keeps the left's, RIGHT the right's, FULL neither);
# the keys of both sides together always; a SEMI join keeps the left's.
# ROW_NUMBER() = 1 (deduplication, keep first or last, on processing or
# event time) has its partition as key; a Top-N its partition + rank number
# when the number is a column, and the input's keys that survive the
# exchange (a global Top-N: all) when rows keep their output place (no rank
# number, ranks from 1). Window aggregations emit no updates.
# The jdbc sink is built only with libpq: without it the test says so and
# passes (its connector cannot be planned).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-upm-plan-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
touch orders.json cust.csv custs.json ev.csv
fails=0
ddl() {
    cat <<'EOF'
CREATE TABLE orders (id INT, cust INT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');
CREATE TABLE cust (cust INT, name STRING)
  WITH ('connector' = 'filesystem', 'path' = 'cust.csv', 'format' = 'csv');
CREATE TABLE custs (cust INT, name STRING, PRIMARY KEY (cust) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'custs.json', 'format' = 'debezium-json');
CREATE TABLE ev (cust INT, name STRING, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'ev.csv', 'format' = 'csv');
CREATE TABLE oc (id INT, cust INT, name STRING, PRIMARY KEY (id, cust) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/x', 'table-name' = 'oc');
CREATE TABLE r (cust INT, rn BIGINT, id INT, PRIMARY KEY (cust, rn) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/x', 'table-name' = 'r');
CREATE TABLE o (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/x', 'table-name' = 'o');
CREATE TABLE g (cust INT, n BIGINT, PRIMARY KEY (cust) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/x', 'table-name' = 'g');
CREATE TABLE p (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'print');
EOF
}
# plan NAME SETTING QUERY WANT: EXPLAIN of QUERY under SETTING ('' for none) must show WANT (a line of
# the plan, or "none": no SinkMaterializer)
plan() {
    { [ -n "$2" ] && echo "SET 'table.exec.sink.upsert-materialize' = '$2';"; ddl; echo "EXPLAIN $3;"; } > job.sql
    if ! "$WEIR" run job.sql > out 2> err; then
        if grep -q "is not built into this weir" err; then
            echo "test_upsert_materialize_plan: the jdbc connector is not built (no libpq): nothing to check"
            exit 0
        fi
        echo "FAIL $1: the plan failed:"; head -3 err; fails=$((fails + 1)); return
    fi
    if [ "$4" = none ]; then
        grep -q SinkMaterializer out && { echo "FAIL $1: a materializer where none belongs:"; cat out; fails=$((fails + 1)); }
    else
        grep -qF -- "$4" out || { echo "FAIL $1: no line '$4' in:"; cat out; fails=$((fails + 1)); }
    fi
    grep -q SinkMaterializer out && ! grep -q "SinkMaterializer -> Sink\[" out &&
        { echo "FAIL $1: the materializer is not chained to the sink:"; cat out; fails=$((fails + 1)); }
    return 0
}
JOIN="INSERT INTO o SELECT orders.id, cust.name FROM orders JOIN cust ON orders.cust = cust.cust"
plan join-auto "" "$JOIN" "SinkMaterializer[5]: primary-key=(id) upsert-key=(none) mode=AUTO"
plan join-auto-explicit AUTO "$JOIN" "SinkMaterializer[5]: primary-key=(id) upsert-key=(none) mode=AUTO"
plan join-none NONE "$JOIN" none
plan join-print "" "INSERT INTO p SELECT orders.id, cust.name FROM orders JOIN cust ON orders.cust = cust.cust" none
plan group-by-key "" "INSERT INTO g SELECT cust, COUNT(*) FROM orders GROUP BY cust" none
plan group-by-key-having "" "INSERT INTO g SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust HAVING COUNT(*) > 1" none
plan group-by-global "" "INSERT INTO g SELECT 1, COUNT(*) FROM orders" none
plan group-by-wider "" "INSERT INTO g SELECT amount, COUNT(*) FROM orders GROUP BY amount, cust" \
    "upsert-key=(none) mode=AUTO"
plan group-by-other "" "INSERT INTO g SELECT CAST(COUNT(*) AS INT), MAX(amount) FROM orders GROUP BY cust" \
    "upsert-key=(none) mode=AUTO"
plan source-key "" "INSERT INTO g SELECT id, amount FROM orders" none
plan source-key-dropped "" "INSERT INTO g SELECT cust, amount FROM orders" "upsert-key=(none) mode=AUTO"
plan group-by-force FORCE "INSERT INTO g SELECT cust, COUNT(*) FROM orders GROUP BY cust" \
    "SinkMaterializer[5]: primary-key=(cust) upsert-key=(cust) mode=FORCE"
plan join-print-force FORCE "INSERT INTO p SELECT orders.id, cust.name FROM orders JOIN cust ON orders.cust = cust.cust" \
    "primary-key=(id) upsert-key=(none) mode=FORCE"
# joins: orders (key id) and custs (key cust), both hashed by their key
ON_KEYS="FROM orders %s JOIN custs ON orders.id = custs.cust"
J() { printf "INSERT INTO %s SELECT %s $ON_KEYS" "$1" "$2" "$3"; }
plan join-inner-keys "" "$(J o "orders.id, custs.name" "")" none
plan join-inner-right-key "" "$(J g "custs.cust, orders.amount" "")" none
plan join-left-keeps-left "" "$(J o "orders.id, custs.name" LEFT)" none
plan join-left-pads-right "" "$(J g "custs.cust, orders.amount" LEFT)" "upsert-key=(none) mode=AUTO"
plan join-right-keeps-right "" "$(J g "custs.cust, orders.amount" RIGHT)" none
plan join-right-pads-left "" "$(J o "orders.id, custs.name" RIGHT)" "upsert-key=(none) mode=AUTO"
plan join-full-both "" "$(J oc "orders.id, custs.cust, custs.name" FULL)" none
plan join-full-pads-both "" "$(J o "orders.id, custs.name" FULL)" "upsert-key=(none) mode=AUTO"
# cust (append-only) has no key: its join key holds none, so orders' id is not unique in the join
plan join-other-not-unique "" "INSERT INTO o SELECT orders.id, cust.name FROM orders JOIN cust ON orders.id = cust.cust" \
    "upsert-key=(none) mode=AUTO"
plan join-of-groups "" "INSERT INTO g SELECT a.cust, b.n FROM (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) a
  JOIN (SELECT cust, SUM(amount) AS n FROM orders GROUP BY cust) b ON a.cust = b.cust" none
plan semi-join "" "INSERT INTO g SELECT cust, n FROM (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust)
  WHERE cust IN (SELECT cust FROM cust)" none
# Top-N and deduplication
TOPN="FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY amount DESC) AS rn FROM orders)"
plan topn-rank-number "" "INSERT INTO r SELECT cust, rn, id $TOPN WHERE rn <= 3" none
plan topn-rank-number-wider "" "INSERT INTO g SELECT cust, rn $TOPN WHERE rn <= 3" \
    "primary-key=(cust) upsert-key=(cust,n) mode=AUTO"
# orders' key id does not contain the partition (cust): the exchange may reorder an id's changes
plan topn-input-key-reordered "" "INSERT INTO o SELECT id, CAST(cust AS STRING) $TOPN WHERE rn <= 3" \
    "upsert-key=(none) mode=AUTO"
plan topn-global-of-groups "" "INSERT INTO g SELECT cust, n FROM (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust)
  ORDER BY n DESC LIMIT 3" none
plan top1-partition "" "INSERT INTO g SELECT cust, amount $TOPN WHERE rn = 1" none
# the input's key (cust, id) holds the partition: a key of the Top-N only while rows keep their output
# place (ranks from 1, no rank number); a climbing row's new place comes before its old one's retraction
TOPG="FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY s DESC) AS rn
  FROM (SELECT cust, id, SUM(amount) AS s FROM orders GROUP BY cust, id))"
plan topn-input-key-kept "" "INSERT INTO oc SELECT id, cust, 'x' $TOPG WHERE rn <= 3" none
plan topn-input-key-rank-number "" "INSERT INTO oc SELECT id, cust, CAST(rn AS STRING) $TOPG WHERE rn <= 3" \
    "upsert-key=(none) mode=AUTO"
plan topn-input-key-ranks-from-2 "" "INSERT INTO oc SELECT id, cust, 'x' $TOPG WHERE rn BETWEEN 2 AND 3" \
    "upsert-key=(none) mode=AUTO"
DEDUP="FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY %s) AS rn FROM ev) WHERE rn = 1"
plan dedup-last-proctime "" "INSERT INTO g SELECT cust, 1 $(printf "$DEDUP" "pt DESC")" none
plan dedup-first-rowtime "" "INSERT INTO g SELECT cust, 1 $(printf "$DEDUP" "ts")" none
plan dedup-last-rowtime "" "INSERT INTO g SELECT cust, 1 $(printf "$DEDUP" "ts DESC")" none
plan window-aggregate "" "INSERT INTO g SELECT cust, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY cust, window_start, window_end" none
{ echo "SET 'table.exec.sink.upsert-materialize' = 'sometimes';"; ddl; echo "$JOIN;"; } > job.sql
"$WEIR" run job.sql > out 2> err
code=$?
if [ $code -ne 3 ] || ! grep -qF "job.sql:1:44: error: table.exec.sink.upsert-materialize: expected 'NONE', 'AUTO' or 'FORCE', got 'sometimes'" err; then
    echo "FAIL bad value: exit $code:"; cat err; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || { echo "test_upsert_materialize_plan: $fails failed"; exit 1; }
echo "test_upsert_materialize_plan: passed"
