#!/usr/bin/env bash
# tests/test_sink_shared_table.sh WEIR SOURCE_DIR - several writers into one
# filesystem table: two INSERTs into one table (without and with PARTITIONED
# BY), and two window aggregations whose late rows share one late-row table
# ('weir.late-records.table'). At parallelism 1 and 2, without and with
# checkpoints, the job must succeed and the table must hold exactly the
# rows that each writer writes when it has a table of its own (a run of each
# writer alone), with no hidden file left and every part file name unique to
# its writer.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-shared-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }

# 6000 rows; every 50th is 5 s behind (late for 1 s and 2 s windows).
awk 'BEGIN { for (i = 0; i < 6000; i++) { ts = 100000 + i * 10; if (i % 50 == 0) ts -= 5000;
    printf "k%d,%d,%d,2024-01-0%d\n", i % 5, i, ts, i % 3 + 1 } }' > in.csv
SRC="CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, dt STRING, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');"
# table NAME PATH [PARTITIONED]: a small rolling size, so every writer rolls
# many files (and, before the fix, collided on their names).
table() {
    local part=""
    [ "${3:-}" = partitioned ] && part="PARTITIONED BY (dt)"
    echo "CREATE TABLE $1 (k STRING, v BIGINT, dt STRING) $part
      WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'csv',
            'sink.rolling-policy.file-size' = '2kb');"
}
Q1="SELECT k, v, dt FROM src WHERE v % 3 = 0"
Q2="SELECT k, v * 10, dt FROM src WHERE v % 2 = 0"   # overlaps Q1 on v % 6 = 0
W1="SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end"
W2="SELECT k, window_start, SUM(v) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end"
LATE="CREATE TABLE late (k STRING, v BIGINT, lateness_ms BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'late', 'format' = 'csv', 'sink.rolling-policy.file-size' = '300b');
CREATE TABLE w1 (k STRING, window_start TIMESTAMP(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = 'w1', 'format' = 'csv');
CREATE TABLE w2 (k STRING, window_start TIMESTAMP(3), s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'w2', 'format' = 'csv');"

# rows DIR: every visible row under DIR with its partition folder, sorted
rows() {
    find "$1" -type f -name 'part-*' 2>/dev/null | while read -r f; do
        d=$(dirname "$f"); sed "s|^|${d#"$1"} |" "$f"; done | LC_ALL=C sort
}
hidden() { find "$@" -name '.*' -type f 2>/dev/null | wc -l; }
run() { # $1: job file; the rest: options
    local job=$1; shift
    "$WEIR" run "$job" "$@" > /dev/null 2> log || fail "$job $*: exit $?"
}

# The references: each writer alone, into a table of its own.
{ echo "$SRC"; table a ref_a; echo "INSERT INTO a $Q1;"; } > ref_a.sql
{ echo "$SRC"; table b ref_b; echo "INSERT INTO b $Q2;"; } > ref_b.sql
{ echo "$SRC"; table a ref_pa partitioned; echo "INSERT INTO a $Q1;"; } > ref_pa.sql
{ echo "$SRC"; table b ref_pb partitioned; echo "INSERT INTO b $Q2;"; } > ref_pb.sql
for w in 1 2; do
    { echo "SET 'weir.late-records.table' = 'late';"; echo "$SRC"; echo "$LATE";
      q=W$w; echo "INSERT INTO w$w ${!q};"; } > ref_w$w.sql
done
# The shared ones.
{ echo "$SRC"; table t out; echo "EXECUTE STATEMENT SET BEGIN INSERT INTO t $Q1; INSERT INTO t $Q2; END;"; } > shared.sql
{ echo "$SRC"; table t pout partitioned;
  echo "EXECUTE STATEMENT SET BEGIN INSERT INTO t $Q1; INSERT INTO t $Q2; END;"; } > shared_part.sql
{ echo "SET 'weir.late-records.table' = 'late';"; echo "$SRC"; echo "$LATE";
  echo "EXECUTE STATEMENT SET BEGIN INSERT INTO w1 $W1; INSERT INTO w2 $W2; END;"; } > shared_late.sql

run ref_a.sql; run ref_b.sql; run ref_pa.sql; run ref_pb.sql
{ rows ref_a; rows ref_b; } | LC_ALL=C sort > want_plain.txt
{ rows ref_pa; rows ref_pb; } | LC_ALL=C sort > want_part.txt
rm -rf late; run ref_w1.sql; rows late > want_late1.txt
rm -rf late; run ref_w2.sql; rows late > want_late2.txt
LC_ALL=C sort want_late1.txt want_late2.txt > want_late.txt
[ "$(wc -l < want_plain.txt)" -eq 5000 ] || fail "reference: $(wc -l < want_plain.txt) rows, not 5000"
[ -s want_late1.txt ] && [ -s want_late2.txt ] || fail "reference: no late rows"
rm -rf late w1 w2

for p in 1 2; do
    for mode in plain checkpoints; do
        CK=()
        [ $mode = checkpoints ] && CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=20ms)
        rm -rf out pout late w1 w2 ckpt
        run shared.sql -D parallelism.default=$p "${CK[@]}"
        rows out | cmp -s - want_plain.txt || fail "p=$p $mode: two INSERTs into one table: rows differ"
        rm -rf ckpt
        run shared_part.sql -D parallelism.default=$p "${CK[@]}"
        rows pout | cmp -s - want_part.txt || fail "p=$p $mode: two INSERTs into one partitioned table: rows differ"
        rm -rf ckpt
        run shared_late.sql -D parallelism.default=$p "${CK[@]}"
        rows late | cmp -s - want_late.txt || fail "p=$p $mode: two windows into one late-row table: rows differ"
        [ "$(hidden out pout late)" -eq 0 ] || fail "p=$p $mode: hidden files left"
        # part-<writer>-<run>-<subtask>-<n>: two writers per table, one run each.
        for d in out late; do
            n=$(find $d -name 'part-*' | sed 's|.*/part-\([0-9a-f]*-[0-9a-f]*\)-.*|\1|' | sort -u | wc -l)
            [ "$n" -eq 2 ] || fail "p=$p $mode: $d holds files of $n writer/run ids, not 2"
        done
        echo "  parallelism $p, $mode: two INSERTs (plain, partitioned) and two late-row outputs share their tables"
    done
done
echo "test_sink_shared_table: passed"
