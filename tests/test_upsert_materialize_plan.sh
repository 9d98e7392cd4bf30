#!/usr/bin/env bash
# tests/test_upsert_materialize_plan.sh WEIR SOURCE_DIR - where the planner
# puts the upsert materializer (table.exec.sink.upsert-materialize), read
# from EXPLAIN: under AUTO an upsert sink (jdbc with a PRIMARY KEY) gets one
# when no upsert key of the query is within its PRIMARY KEY (a join hashed
# by another column, a GROUP BY wider than the key) and none when one is
# (GROUP BY k into PRIMARY KEY (k), a changelog source's key renamed); a
# print table (no upsert sink) gets none; NONE never, FORCE always (an
# updating query into a PRIMARY KEY); a bad value is refused at its SET.
# The jdbc sink is built only with libpq: without it the test says so and
# passes (its connector cannot be planned).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-upm-plan-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
touch orders.json cust.csv
fails=0
ddl() {
    cat <<'EOF'
CREATE TABLE orders (id INT, cust INT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');
CREATE TABLE cust (cust INT, name STRING)
  WITH ('connector' = 'filesystem', 'path' = 'cust.csv', 'format' = 'csv');
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
{ echo "SET 'table.exec.sink.upsert-materialize' = 'sometimes';"; ddl; echo "$JOIN;"; } > job.sql
"$WEIR" run job.sql > out 2> err
code=$?
if [ $code -ne 3 ] || ! grep -qF "job.sql:1:44: error: table.exec.sink.upsert-materialize: expected 'NONE', 'AUTO' or 'FORCE', got 'sometimes'" err; then
    echo "FAIL bad value: exit $code:"; cat err; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || { echo "test_upsert_materialize_plan: $fails failed"; exit 1; }
echo "test_upsert_materialize_plan: passed"
