#!/usr/bin/env bash
# bench/pg_sink_bench.sh [WEIR] - throughput of the 'jdbc' sink against
# `psql \copy` of the same rows, on a throwaway PostgreSQL server started
# here. Rows: BIGINT id, STRING k, DOUBLE v, TIMESTAMP(3) ts, from a CSV
# file. Each round runs, in turn and on an emptied table:
#   psql-copy      psql -c "\copy t FROM 'in.csv' CSV"
#   weir-blackhole the same file into weir's blackhole sink (source cost)
#   weir-append    the same file into the jdbc sink, append mode (COPY),
#                  at-least-once with the default flush size (100 rows:
#                  one COPY and commit per incoming batch)
#   weir-append-10k the same with 'sink.buffer-flush.max-rows' = '10000'
#   weir-append-eo the same, exactly-once (checkpoints every second)
#   weir-upsert    the same file into a table with a PRIMARY KEY (id)
# and prints the median of ROUNDS (default 3) wall times per case, with
# rows/s. BENCH_ROWS (default 1000000) rows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
WEIR=$(cd "$(dirname "${1:-$root/build/weir}")" && pwd)/$(basename "${1:-$root/build/weir}")
ROWS=${BENCH_ROWS:-1000000}
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d /tmp/weir-pg-bench-XXXXXX)
. "$root/tests/support/pg_server.sh"
trap 'pg_stop; rm -rf "$work"' EXIT
pg_start "$work/pg" > /dev/null
cd "$work"
awk -v n="$ROWS" 'BEGIN { srand(1); for (i = 0; i < n; i++)
    printf "%d,key-%d,%.6f,2024-01-%02d %02d:%02d:%02d.%03d\n", i, int(rand() * 1000), rand() * 1000,
        1 + i % 28, i % 24, i % 60, (i * 7) % 60, i % 1000 }' > in.csv
psql -qX -c "CREATE TABLE t (id bigint, k text, v double precision, ts timestamp(3));
             CREATE TABLE tk (id bigint PRIMARY KEY, k text, v double precision, ts timestamp(3))"
URL="jdbc:postgresql://127.0.0.1:$PGPORT/postgres"
src="CREATE TABLE src (id BIGINT, k STRING, v DOUBLE, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');"
cols="id BIGINT, k STRING, v DOUBLE, ts TIMESTAMP(3)"
echo "$src CREATE TABLE d ($cols) WITH ('connector' = 'blackhole'); INSERT INTO d SELECT * FROM src;" > blackhole.sql
echo "$src CREATE TABLE d ($cols) WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 't', 'username' = 'postgres'); INSERT INTO d SELECT * FROM src;" > append.sql
echo "$src CREATE TABLE d ($cols) WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 't', 'username' = 'postgres', 'sink.buffer-flush.max-rows' = '10000'); INSERT INTO d SELECT * FROM src;" > append_10k.sql
echo "$src CREATE TABLE d ($cols) WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 't', 'username' = 'postgres', 'sink.delivery-guarantee' = 'exactly-once'); INSERT INTO d SELECT * FROM src;" > append_eo.sql
echo "$src CREATE TABLE d ($cols, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'tk', 'username' = 'postgres'); INSERT INTO d SELECT * FROM src;" > upsert.sql

ms() { local s; s=$(date +%s%N); "$@" > /dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
declare -A times
cases="psql-copy weir-blackhole weir-append weir-append-10k weir-append-eo weir-upsert"
for ((r = 1; r <= ROUNDS; r++)); do
    psql -qX -c "TRUNCATE t; TRUNCATE tk; CHECKPOINT"
    times[psql-copy]+=" $(ms psql -qX -c "\\copy t FROM 'in.csv' CSV")"
    times[weir-blackhole]+=" $(ms "$WEIR" run blackhole.sql)"
    psql -qX -c "TRUNCATE t; CHECKPOINT"
    times[weir-append]+=" $(ms "$WEIR" run append.sql)"
    [ "$(psql -AtqX -c 'SELECT count(*) FROM t')" = "$ROWS" ] || { echo "append: wrong row count" >&2; exit 1; }
    psql -qX -c "TRUNCATE t; CHECKPOINT"
    times[weir-append-10k]+=" $(ms "$WEIR" run append_10k.sql)"
    [ "$(psql -AtqX -c 'SELECT count(*) FROM t')" = "$ROWS" ] || { echo "append-10k: wrong row count" >&2; exit 1; }
    psql -qX -c "TRUNCATE t; CHECKPOINT"
    rm -rf ckpt
    times[weir-append-eo]+=" $(ms "$WEIR" run append_eo.sql -D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=1s)"
    [ "$(psql -AtqX -c 'SELECT count(*) FROM t')" = "$ROWS" ] || { echo "append-eo: wrong row count" >&2; exit 1; }
    times[weir-upsert]+=" $(ms "$WEIR" run upsert.sql)"
    [ "$(psql -AtqX -c 'SELECT count(*) FROM tk')" = "$ROWS" ] || { echo "upsert: wrong row count" >&2; exit 1; }
done
echo "rows: $ROWS, rounds: $ROUNDS, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %10s %12s  %s\n' case median_ms rows_per_s all_ms
for c in $cases; do
    med=$(tr ' ' '\n' <<< "${times[$c]}" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    printf '%-16s %10d %12d  %s\n' "$c" "$med" $(( ROWS * 1000 / (med > 0 ? med : 1) )) "${times[$c]# }"
done
