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
echo "test_changelog_order: 2 passed, 0 failed"
