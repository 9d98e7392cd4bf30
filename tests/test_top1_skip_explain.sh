#!/usr/bin/env bash
# tests/test_top1_skip_explain.sh WEIR SOURCE_DIR - where a regular join
# skips the rows its Top-1 would drop (ops/top1_hint.h,
# planner/top1_skip.c): `weir explain` marks the Rank with "skips for
# Join[n] (left|right rows ...)" for each shape that qualifies and leaves
# it off for each one that does not (state TTL, an outer join, an updating
# input, N > 1, a rank range from 2, ORDER BY columns of both sides, a
# partition other than the join key or a computed one, an interval join,
# the option off, a job run by several processes), and the job graph
# chains the join to the Rank.
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0

ddl="CREATE TABLE o (id BIGINT, a STRING, lo BIGINT, hi BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'json');
CREATE TABLE m (k BIGINT, p INT, t BIGINT, x STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'm', 'format' = 'json');
CREATE TABLE c (k BIGINT, p INT, t BIGINT, x STRING, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'c', 'format' = 'debezium-json');
CREATE TABLE out4 (id BIGINT, a STRING, p INT, t BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE out5 (id BIGINT, a STRING, p INT, t BIGINT, rn BIGINT) WITH ('connector' = 'blackhole');"

# check NAME WANT(skip|none) SIDE(left|right|-) QUERY [SET...]
check() {
  local name=$1 want=$2 side=$3 query=$4 set=${5:-}
  printf '%s\n%s\n%s\n' "$set" "$ddl" "$query" >"$name.sql"
  if ! "$weir" explain "$name.sql" >"$name.out" 2>&1; then
    echo "FAIL $name: explain failed: $(tail -3 "$name.out")"
    fail=1
    return
  fi
  local rank
  rank=$(grep -E '^  (Rank|Deduplicate)\[' "$name.out")
  if [ "$want" = skip ]; then
    if ! grep -qE "skips for Join\[[0-9]+\] \($side rows" <<<"$rank"; then
      echo "FAIL $name: expected the join to skip $side rows: $rank"
      fail=1
    elif ! grep -qE '^task [0-9]+ .*Join -> .*Rank' "$name.out"; then
      echo "FAIL $name: the join is not chained to the Rank:"
      cat "$name.out"
      fail=1
    fi
  elif grep -q "skips for" <<<"$rank"; then
    echo "FAIL $name: expected no skipping: $rank"
    fail=1
  fi
}

top1() { # PARTITION, ORDER, FROM, [rank filter], [select]
  echo "INSERT INTO out4 SELECT id, a, p, t FROM (SELECT o.id, o.a, m.p, m.t,
    ROW_NUMBER() OVER (PARTITION BY $1 ORDER BY $2) AS rn FROM $3) WHERE ${4:-rn <= 1};"
}

# the shapes that skip
check q9 skip right "$(top1 o.id 'm.p DESC, m.t' 'o JOIN m ON o.id = m.k AND m.t BETWEEN o.lo AND o.hi')"
check left_key skip left "$(top1 m.k 'm.p' 'm JOIN o ON o.id = m.k' 'rn = 1')"
check order_left skip left "$(top1 o.id 'o.a DESC NULLS LAST, o.lo' 'o JOIN m ON o.id = m.k')"
check where_between skip right "INSERT INTO out4 SELECT id, a, p, t FROM (SELECT id, a, p, t,
    ROW_NUMBER() OVER (PARTITION BY id ORDER BY p) AS rn FROM (SELECT o.id, o.a, m.p, m.t, m.x
    FROM o, m WHERE o.id = m.k) WHERE x IS NULL OR x <> a) WHERE rn = 1;"
check rank_number skip right "INSERT INTO out5 SELECT * FROM (SELECT o.id, o.a, m.p, m.t,
    ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY m.t DESC) AS rn FROM o JOIN m ON o.id = m.k) WHERE rn <= 1;"
check parallel skip right "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" "SET 'parallelism.default' = '4';"

# the shapes that do not
check ttl none - "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" "SET 'table.exec.state.ttl' = '1 h';"
check option_off none - "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" "SET 'weir.join.top1-skip' = 'false';"
# a job run by several processes: the exchange into the Top-1 is a repartition topic, never chained
check cluster none - "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" "SET 'weir.cluster.bootstrap-servers' = 'localhost:9092';"
check cluster_empty skip right "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" "SET 'weir.cluster.bootstrap-servers' = '';"
check left_join none - "$(top1 o.id 'm.p DESC' 'o LEFT JOIN m ON o.id = m.k')"
check updating_input none - "INSERT INTO out4 SELECT id, a, p, t FROM (SELECT o.id, o.a, c.p, c.t,
    ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY c.p DESC) AS rn FROM o JOIN c ON o.id = c.k) WHERE rn <= 1;"
check top2 none - "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k' 'rn <= 2')"
check rank_from_2 none - "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k' 'rn = 2')"
check both_sides none - "$(top1 o.id 'm.p DESC, o.a' 'o JOIN m ON o.id = m.k')"
check other_partition none - "$(top1 m.x 'm.p DESC' 'o JOIN m ON o.id = m.k')"
check partition_and_more none - "$(top1 'o.id, m.x' 'm.p DESC' 'o JOIN m ON o.id = m.k')"
check computed_partition none - "$(top1 'CAST(o.id AS INT)' 'm.p DESC' 'o JOIN m ON o.id = m.k')"
check computed_order none - "$(top1 o.id 'm.p + 1' 'o JOIN m ON o.id = m.k')"
# the right side's key: the rows would go through an exchange to the Top-1 (the join places
# them by its left key), where the join could not read its hint
check right_key none - "$(top1 o.id 'm.p DESC' 'm JOIN o ON m.k = o.id')"
interval="o JOIN m ON o.id = m.k AND m.ts BETWEEN o.ts AND o.ts + INTERVAL '1' MINUTE"
check interval none - "$(top1 o.id 'm.p DESC' "$interval")"
# a value that is no boolean: a clear error naming the option, with a Top-1 to link and without
printf "SET 'weir.join.top1-skip' = 'maybe';\n%s\n%s\n" "$ddl" "$(top1 o.id 'm.p DESC' 'o JOIN m ON o.id = m.k')" >bad.sql
printf "SET 'weir.join.top1-skip' = 'maybe';\n%s\nINSERT INTO out4 SELECT o.id, o.a, m.p, m.t FROM o JOIN m ON o.id = m.k;\n" \
  "$ddl" >bad_no_top1.sql
for bad in bad bad_no_top1; do
  if "$weir" explain $bad.sql >$bad.out 2>&1 ||
    ! grep -q "$bad.sql:1:[0-9]*: error: SET weir.join.top1-skip: expected 'true' or 'false', got 'maybe'" $bad.out; then
    echo "FAIL $bad option: $(cat $bad.out)"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "top1_skip_explain: all shapes as expected"
exit $fail
