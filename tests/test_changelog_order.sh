#!/usr/bin/env bash
# tests/test_changelog_order.sh WEIR SOURCE_DIR - a changelog keeps its order
# on the way to the sink: operators that read it without a shuffle (Calc,
# sink) run at its producer's parallelism, as in Flink, instead of taking the
# job's default behind a round-robin exchange, which let a -U of one
# subtask overtake its +U in another. A sink.parallelism that would split an
# updating result without a PRIMARY KEY is refused (Flink refuses it too).
set -u
WEIR=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
for i in $(seq 1 3000); do echo "{\"k\":\"k$((i % 7))\",\"v\":$i}"; done > in.json
cat > job.sql <<'SQL'
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE o (c BIGINT, s INT) WITH ('connector' = 'print', 'print-identifier' = 'o');
INSERT INTO o SELECT COUNT(*), SUM(v) + 0 FROM t;
SQL
"$WEIR" explain job.sql -D parallelism.default=3 > plan.txt 2>&1 || fail "explain failed: $(cat plan.txt)"
grep -q "GroupAggregate -> Calc" plan.txt || fail "the Calc after a global aggregation is not chained to it:
$(cat plan.txt)"
grep -q "REBALANCE" plan.txt && fail "a changelog goes through a round-robin exchange:
$(cat plan.txt)"
# The printed changelog, in order, is one consistent history: each -U
# retracts the row emitted just before it, and the last row is the total.
"$WEIR" run job.sql -D parallelism.default=3 -D weir.batch-size=7 > out.txt 2> err.txt || fail "run failed: $(cat err.txt)"
awk -F'> ' '
  { sub(/^[^>]*> /, ""); kind = substr($0, 1, 2); row = substr($0, 4) }
  kind == "+I" || kind == "+U" { if (have) { print "FAIL: " kind " while " cur " is current"; bad = 1; exit 1 } cur = row; have = 1; next }
  kind == "-U" || kind == "-D" { if (!have || row != cur) { print "FAIL: " kind row " retracts " (have ? cur : "nothing"); bad = 1; exit 1 } have = 0; next }
  END { if (!bad && cur != "3000, 4501500]") { print "FAIL: last row " cur; exit 1 } }
' out.txt || fail "the changelog is out of order"
echo "  a global aggregation's changelog stays in order at parallelism 3"
sed -i "s/'print-identifier' = 'o'/'print-identifier' = 'o', 'sink.parallelism' = '2'/" job.sql
"$WEIR" explain job.sql -D parallelism.default=3 > plan.txt 2>&1 && fail "sink.parallelism splitting an updating result was accepted"
grep -q "sink.parallelism 2 differs from its input's (1)" plan.txt || fail "unclear refusal: $(cat plan.txt)"
echo "  sink.parallelism splitting an updating result without a PRIMARY KEY is refused"
# A union's updating input of another parallelism (the () set of a ROLLUP,
# a global aggregation beside a keyed one in UNION ALL) goes whole to one
# subtask of the union, and a lookup join runs at its input's parallelism: each sink part file, folded alone, is a consistent
# history (no retraction of a row it does not hold), and all files together
# hold the final rows.
fold_parts() {
  for f in "$1"/*; do
    jq -rc 'if .op == "d" then "-\(.before)" else "+\(.after)" end' "$f" |
      awk -v f="$f" '{ r = substr($0, 2); if (substr($0, 1, 1) == "+") n[r]++; else if (--n[r] < 0) { print "BAD " f " retracts absent " r; exit 1 } }
           END { for (r in n) for (i = 0; i < n[r]; i++) print r }' || return 1
  done | LC_ALL=C sort
}
echo '{"n":1,"label":"odd"}' > dim.json
cat > job.sql <<'SQL'
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE o (k STRING, n BIGINT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_rollup', 'format' = 'debezium-json');
CREATE TABLE u (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_union', 'format' = 'debezium-json');
CREATE TABLE tp (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE dim (n BIGINT, label STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.json', 'format' = 'json');
CREATE TABLE l (c BIGINT, label STRING) WITH ('connector' = 'filesystem', 'path' = 'out_lookup', 'format' = 'debezium-json');
CREATE VIEW g AS SELECT COUNT(*) AS c, MOD(COUNT(*), 2) AS m, PROCTIME() AS pt FROM tp;
EXECUTE STATEMENT SET BEGIN
INSERT INTO l SELECT g.c, d.label FROM g LEFT JOIN dim FOR SYSTEM_TIME AS OF g.pt AS d ON g.m = d.n;
INSERT INTO o SELECT k, COUNT(*), SUM(v) FROM t GROUP BY ROLLUP(k);
INSERT INTO u SELECT k, COUNT(*) FROM t GROUP BY k UNION ALL SELECT 'all', COUNT(*) FROM t;
END;
SQL
"$WEIR" explain job.sql -D parallelism.default=3 > plan.txt 2>&1 || fail "explain failed: $(cat plan.txt)"
grep -q "REBALANCE" plan.txt && fail "a union's changelog input goes through a round-robin exchange:
$(cat plan.txt)"
"$WEIR" run job.sql -D parallelism.default=3 -D weir.batch-size=7 > out.txt 2> err.txt || fail "run failed: $(cat err.txt)"
got=$(fold_parts out_rollup) || fail "ROLLUP: $got"
want=$( (for k in 0 1 2 3 4 5 6; do
           awk -v k=$k 'BEGIN { for (i = 1; i <= 3000; i++) if (i % 7 == k) { n++; s += i } printf "{\"k\":\"k%d\",\"n\":%d,\"s\":%d}\n", k, n, s }'
         done; echo '{"k":null,"n":3000,"s":4501500}') | LC_ALL=C sort)
[ "$got" = "$want" ] || fail "ROLLUP rows:
$got
expected
$want"
echo "  a ROLLUP's () set keeps its changelog's order at parallelism 3"
got=$(fold_parts out_union) || fail "UNION ALL: $got"
want=$( (for k in 0 1 2 3 4 5 6; do
           awk -v k=$k 'BEGIN { for (i = 1; i <= 3000; i++) if (i % 7 == k) n++; printf "{\"k\":\"k%d\",\"n\":%d}\n", k, n }'
         done; echo '{"k":"all","n":3000}') | LC_ALL=C sort)
[ "$got" = "$want" ] || fail "UNION ALL rows:
$got
expected
$want"
echo "  a global aggregation in a UNION ALL keeps its changelog's order at parallelism 3"
got=$(fold_parts out_lookup) || fail "lookup join: $got"
[ "$got" = '{"c":3000,"label":null}' ] || fail "lookup join rows: $got"
echo "  a lookup join runs at its updating input's parallelism and keeps its order"
echo "test_changelog_order: 5 passed, 0 failed"
