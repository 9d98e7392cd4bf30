#!/usr/bin/env bash
# tests/test_pg_sink.sh WEIR SOURCE_DIR - the 'jdbc' sink against a real
# PostgreSQL server that this script starts and stops:
#   1. append mode (COPY): a TUMBLE window into a table without a key,
#      exactly-once and at-least-once, equal to the same query into a CSV
#      file sink; every type round-trips (strings with tabs, newlines,
#      quotes and backslashes; decimals; timestamps; DATE and TIME) through both COPY and
#      the upsert statements;
#   2. upsert mode: a GROUP BY into a table with a PRIMARY KEY, and a top-1
#      query whose displaced rows arrive as -D (deletes);
#   3. a clean end and a stop (SIGTERM) leave no prepared transaction;
#      a prepared transaction a killed run left behind is rolled back by the
#      next run when no checkpoint covers it;
#   4. errors that say what and where: an updating query into a table
#      without a PRIMARY KEY (refused at plan time, as Flink), a missing
#      table, a missing column, a URL parameter with a typo, a server that
#      does not answer, exactly-once without checkpoints;
#   5. at-least-once retries: the server restarted between two flushes, the
#      job goes on after reconnecting.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC_DIR=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/weir-pg-sink-XXXXXX)
. "$SRC_DIR/tests/support/pg_server.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }
pg_start "$T/pg" || fail "cannot start PostgreSQL"
URL="jdbc:postgresql://127.0.0.1:$PGPORT/postgres"
q() { psql -AtqX -v ON_ERROR_STOP=1 -c "$1"; }
prepared() { q "SELECT count(*) FROM pg_prepared_xacts"; }

awk 'BEGIN { srand(3); for (i = 0; i < 20000; i++) {
    printf "k%d,%d,%d\n", int(rand() * 40), int(rand() * 1000), 1000000 + i * 7 + int(rand() * 200) } }' > in.csv
SRC="CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');"
WIN="SELECT k, window_start, window_end, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end"
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms)

# ---- 1. append mode ----
{ echo "$SRC"; echo "CREATE TABLE f (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
    WITH ('connector' = 'filesystem', 'path' = 'ref', 'format' = 'csv');"
  echo "INSERT INTO f $WIN;"; } > ref.sql
"$WEIR" run ref.sql > /dev/null 2> log || fail "reference run"
cat ref/part-* | sed 's/"//g' | LC_ALL=C sort > ref.txt
[ "$(wc -l < ref.txt)" -gt 1000 ] || fail "reference too small"
q "CREATE TABLE win (k text, ws timestamp(3), we timestamp(3), c bigint, s bigint)"
win_rows() { q "SELECT k, to_char(ws, 'YYYY-MM-DD HH24:MI:SS.MS'), to_char(we, 'YYYY-MM-DD HH24:MI:SS.MS'), c, s FROM win" | tr '|' ',' | LC_ALL=C sort; }
for g in exactly-once at-least-once; do
    q "TRUNCATE win"
    rm -rf ckpt
    { echo "$SRC"; echo "CREATE TABLE w (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
        WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'win', 'username' = 'postgres',
              'sink.delivery-guarantee' = '$g', 'sink.buffer-flush.max-rows' = '500');"
      echo "INSERT INTO w $WIN;"; } > win.sql
    "$WEIR" run win.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> log || fail "$g: append run failed"
    win_rows > got.txt
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "$g: table differs from the file sink's rows"; }
    [ "$(prepared)" = 0 ] || fail "$g: prepared transactions left after the end of the input"
    echo "  [${SECONDS}s] append ($g, parallelism 2): $(wc -l < got.txt) rows equal the file sink's"
done

# Types, through COPY (no key) and through INSERT ... ON CONFLICT (key).
printf '%s\n' '1,true,7,-9000000000,2.5,12.34,"tab	here",2024-02-29 23:59:59.123,2024-02-29,23:59:59.123' \
    '2,false,-1,0,-0.1,-0.05,"it'"'"'s ""quoted"" \back\slash",1969-12-31 23:59:59.999,1969-12-31,00:00:00' \
    '3,,,,,,,,,' '4,true,2147483647,9223372036854775807,1e300,99999999.99,"line
break and ,comma",2000-01-01 00:00:00.000,0001-01-01,12:00:00.5' > types.csv
q "CREATE TABLE ty (id int, b boolean, i int, l bigint, d double precision, m numeric(10,2), s text, t timestamp(3), dt date, tm time(3));
   CREATE TABLE tyk (id int PRIMARY KEY, b boolean, i int, l bigint, d double precision, m numeric(10,2), s text, t timestamp(3), dt date, tm time(3))"
for tbl in ty tyk; do
    pk=""; [ $tbl = tyk ] && pk=", PRIMARY KEY (id) NOT ENFORCED"
    cat > types.sql <<EOF
CREATE TABLE src (id INT, b BOOLEAN, i INT, l BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, t TIMESTAMP(3),
  dt DATE, tm TIME(3))
  WITH ('connector' = 'filesystem', 'path' = 'types.csv', 'format' = 'csv');
CREATE TABLE dst (id INT, b BOOLEAN, i INT, l BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, t TIMESTAMP(3),
  dt DATE, tm TIME(3) $pk)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = '$tbl', 'username' = 'postgres');
INSERT INTO dst SELECT * FROM src;
EOF
    "$WEIR" run types.sql > /dev/null 2> log || fail "types into $tbl"
    got=$(q "SELECT id, b, i, l, d, m, s, to_char(t, 'YYYY-MM-DD HH24:MI:SS.MS'), to_char(dt, 'YYYY-MM-DD'), tm
             FROM $tbl ORDER BY id")
    want="1|t|7|-9000000000|2.5|12.34|tab	here|2024-02-29 23:59:59.123|2024-02-29|23:59:59.123
2|f|-1|0|-0.1|-0.05|it's \"quoted\" \\back\\slash|1969-12-31 23:59:59.999|1969-12-31|00:00:00
3|||||||||
4|t|2147483647|9223372036854775807|1e+300|99999999.99|line
break and ,comma|2000-01-01 00:00:00.000|0001-01-01|12:00:00.5"
    [ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; fail "values into $tbl differ"; }
done
echo "  [${SECONDS}s] types: equal through COPY and through upserts"

# ---- 2. upsert mode ----
q "CREATE TABLE agg (k text PRIMARY KEY, c bigint, s bigint, mx bigint);
   CREATE TABLE top1 (k text, v bigint, PRIMARY KEY (k, v))"
cat > upsert.sql <<EOF
$SRC
CREATE TABLE a (k STRING, c BIGINT, s BIGINT, mx BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'agg', 'username' = 'postgres',
        'sink.buffer-flush.max-rows' = '1');
CREATE TABLE t (k STRING, v BIGINT, PRIMARY KEY (k, v) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'top1', 'username' = 'postgres');
INSERT INTO a SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k;
INSERT INTO t SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn <= 1;
EOF
"$WEIR" run upsert.sql -D weir.batch-size=7 > /dev/null 2> log || fail "upsert run failed"
awk -F, '{ c[$1]++; s[$1] += $2; if (!($1 in m) || $2 > m[$1]) m[$1] = $2 }
    END { for (k in c) printf "%s|%d|%d|%d\n", k, c[k], s[k], m[k] }' in.csv | LC_ALL=C sort > agg_ref.txt
q "SELECT k, c, s, mx FROM agg" | LC_ALL=C sort > agg_got.txt
cmp -s agg_ref.txt agg_got.txt || { diff agg_ref.txt agg_got.txt | head; fail "GROUP BY upsert differs"; }
q "SELECT k || '|' || v FROM top1" | LC_ALL=C sort > top_got.txt
cut -d'|' -f1,4 agg_ref.txt > top_ref.txt
cmp -s top_ref.txt top_got.txt || { diff top_ref.txt top_got.txt | head; fail "top-1 (deletes) differs"; }
echo "  [${SECONDS}s] upsert: GROUP BY ($(wc -l < agg_got.txt) keys) and top-1 with deletes equal awk's"

# ---- 3. no prepared transaction left behind ----
# A stop (SIGTERM) with checkpoints: the final checkpoint commits.
# A rate-limited generator (20000 rows in 4 s, its position checkpointed):
# the job is certainly running when it is stopped or reaches a crash point.
NGEN=20000
cat > stop.sql <<EOF
CREATE TABLE gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 7, 3), WATERMARK FOR ts AS ts - INTERVAL '0.2' SECOND)
  WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '$NGEN', 'rows-per-second' = '5000');
CREATE TABLE w (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'win', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.buffer-flush.max-rows' = '500');
INSERT INTO w SELECT CAST(id % 40 AS STRING), window_start, window_end, COUNT(*), SUM(id)
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY CAST(id % 40 AS STRING), window_start, window_end;
EOF
q "TRUNCATE win"; rm -rf ckpt
"$WEIR" run stop.sql "${CK[@]}" > /dev/null 2> log &
pid=$!
for ((i = 0; i < 400; i++)); do [ "$(q 'SELECT count(*) FROM win')" -gt 0 ] && break; sleep 0.05; done
kill -TERM $pid; wait $pid; st=$?
[ $st -eq 143 ] || fail "SIGTERM: exit $st"
[ "$(prepared)" = 0 ] || fail "prepared transactions left after a stop"
[ "$(q 'SELECT count(*) FROM win')" -gt 0 ] || fail "a stop committed nothing"
# A prepared transaction of this sink that no checkpoint covers (as a kill
# between PREPARE and the checkpoint's completion leaves it): the rerun
# rolls it back, and the rows of the stopped run stay exactly once.
before=$(q 'SELECT count(*) FROM win')
q "BEGIN; INSERT INTO win VALUES ('zombie', now(), now(), 1, 1); PREPARE TRANSACTION 'weir-0000000000000000-0-0-999999'" 2>/dev/null || true
"$WEIR" run stop.sql "${CK[@]}" > /dev/null 2> log || fail "resume after the stop failed"
[ "$(prepared)" = 1 ] || fail "the rerun touched a prepared transaction that is not its own, or left its own"
q "ROLLBACK PREPARED 'weir-0000000000000000-0-0-999999'"
[ "$(q "SELECT count(*) - count(DISTINCT (k, ws)) FROM win")" = 0 ] || fail "rows twice after a stop and a resume"
[ "$(q "SELECT sum(c) FROM win")" = "$NGEN" ] || fail "rows lost or twice after a stop and a resume"
echo "  [${SECONDS}s] stop: exit 143, no prepared transaction left; the resume adds the rest, nothing twice ($before rows at the stop)"
# The sink's own leftovers: a run killed right after a PREPARE (the
# checkpoint never completed: rolled back), and one killed right before a
# COMMIT PREPARED (the checkpoint completed: committed). Each rerun resolves
# them; the table ends with every row once.
for point in prepare:2 commit:2; do
    q "TRUNCATE win"; rm -rf ckpt
    { WEIR_TEST_PG_SINK_CRASH=$point "$WEIR" run stop.sql "${CK[@]}" > /dev/null 2> log; st=$?; } 2> /dev/null
    [ $st -eq 137 ] || fail "$point: the crash point was not reached (exit $st)"
    left=$(prepared)
    [ "$left" -ge 1 ] || fail "$point: no prepared transaction left by the crash"
    "$WEIR" run stop.sql "${CK[@]}" > /dev/null 2> log || fail "$point: rerun failed"
    [ "$(prepared)" = 0 ] || fail "$point: prepared transactions left after the rerun"
    case $point in
        prepare:*) grep -q "0 prepared transactions of an earlier run committed, [1-9]" log || fail "$point: nothing rolled back" ;;
        commit:*) grep -q "[1-9] prepared transactions\? of an earlier run committed" log || fail "$point: nothing committed" ;;
    esac
    [ "$(q "SELECT count(*) - count(DISTINCT (k, ws)) FROM win")" = 0 ] || fail "$point: rows twice"
    [ "$(q "SELECT sum(c) FROM win")" = "$NGEN" ] || fail "$point: rows lost or twice"
done
echo "  [${SECONDS}s] killed after a PREPARE and before a COMMIT PREPARED: the reruns rolled back and committed, every row once"

# ---- 4. errors ----
expect_error() { # $1: job file, $2: text the error must contain; the rest: options
    local job=$1 want=$2; shift 2
    "$WEIR" run "$job" "$@" > /dev/null 2> log && fail "$job: expected an error"
    grep -qF -- "$want" log || { cat log; fail "$job: error does not say '$want'"; }
}
sed "s/, PRIMARY KEY (k) NOT ENFORCED//" upsert.sql > nopk.sql
expect_error nopk.sql "nopk.sql:9:13: error: table 'a' cannot take the result of this query"
grep -q "PRIMARY KEY" log || fail "the no-key error does not name PRIMARY KEY"
sed "s/'table-name' = 'agg'/'table-name' = 'nosuch'/" upsert.sql > e1.sql
expect_error e1.sql "option 'table-name': no table 'nosuch' in the database at 127.0.0.1:$PGPORT/postgres"
q "CREATE TABLE agg2 (k text PRIMARY KEY, cnt bigint, s bigint, mx bigint)"
sed "s/'table-name' = 'agg'/'table-name' = 'agg2'/" upsert.sql > e2.sql
expect_error e2.sql "column 'c' not found in PostgreSQL table agg2 (its columns: k, cnt, s, mx)"
sed "s|/postgres'|/postgres?ApplicationNam=x'|" upsert.sql > e3.sql
expect_error e3.sql "unknown parameter 'ApplicationNam'; did you mean 'ApplicationName'?"
grep -q "e3.sql:5:" log || fail "the URL error has no location"
sed "s|127.0.0.1:$PGPORT|127.0.0.1:1|" upsert.sql > e4.sql
expect_error e4.sql "cannot connect to PostgreSQL at 127.0.0.1:1/postgres (option 'url')"
expect_error stop.sql "'exactly-once' commits at checkpoints"
sed "s/'sink.delivery-guarantee' = 'exactly-once'/'sink.delivery-guarantee' = 'twice'/" stop.sql > e5.sql
expect_error e5.sql "expected 'exactly-once', 'at-least-once' or 'none', found 'twice'" "${CK[@]}"
sed "s/'sink.delivery-guarantee' = 'at-least-once'/'sink.delivery-guarantee' = 'EXACTLY_ONCE'/" win.sql > e6.sql
q "TRUNCATE win"; rm -rf ckpt
"$WEIR" run e6.sql "${CK[@]}" > /dev/null 2> log || fail "Flink's DeliveryGuarantee spelling EXACTLY_ONCE is refused"
win_rows | cmp -s - ref.txt || fail "EXACTLY_ONCE run differs"
# Case-insensitive column match (PostgreSQL folds unquoted names).
q "CREATE TABLE camel (userid text PRIMARY KEY, clickcount bigint)"
cat > camel.sql <<EOF
$SRC
CREATE TABLE c (userId STRING, clickCount BIGINT, PRIMARY KEY (userId) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL?currentSchema=public', 'table-name' = 'CAMEL', 'username' = 'postgres');
INSERT INTO c SELECT k, COUNT(*) FROM src GROUP BY k;
EOF
"$WEIR" run camel.sql > /dev/null 2> log || fail "case-folded table and columns"
[ "$(q 'SELECT count(*) FROM camel')" = "$(wc -l < agg_ref.txt)" ] || fail "camel: wrong row count"
echo "  [${SECONDS}s] errors: located and named; Flink's EXACTLY_ONCE spelling and case-folded names accepted"

# ---- 5. at-least-once retries across a server restart ----
# A rate-limited generator (3 s of rows); the server crashes and comes back
# while the job runs; every flush that failed is retried after reconnecting.
q "TRUNCATE agg"
cat > retry.sql <<EOF
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '6000', 'rows-per-second' = '2000');
CREATE TABLE a (k STRING, c BIGINT, s BIGINT, mx BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'agg', 'username' = 'postgres',
        'sink.buffer-flush.max-rows' = '1', 'sink.max-retries' = '8');
INSERT INTO a SELECT CAST(id % 40 AS STRING), COUNT(*), SUM(id), MAX(id) FROM gen GROUP BY CAST(id % 40 AS STRING);
EOF
awk 'BEGIN { for (i = 1; i <= 6000; i++) { k = i % 40; c[k]++; s[k] += i; m[k] = i }
    for (k in c) printf "%d|%d|%d|%d\n", k, c[k], s[k], m[k] }' | LC_ALL=C sort > retry_ref.txt
"$WEIR" run retry.sql > /dev/null 2> log &
pid=$!
for ((i = 0; i < 400; i++)); do [ "$(q 'SELECT count(*) FROM agg' 2>/dev/null)" = 40 ] && break; sleep 0.02; done
pg_stop_immediate
pg_restart || fail "restart"
wait $pid || fail "at-least-once job did not survive the restart"
grep -q "retrying in" log || fail "no retry was needed: the restart came too late to test anything"
q "SELECT k, c, s, mx FROM agg" | LC_ALL=C sort | cmp -s - retry_ref.txt || fail "retry: table differs"
echo "  [${SECONDS}s] at-least-once: the server restarted mid-run, the sink reconnected ($(grep -c 'retrying in' log) retries)"
echo "test_pg_sink: passed"
