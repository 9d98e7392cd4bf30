#!/usr/bin/env bash
# tests/test_pg_sink_diff.sh WEIR SOURCE_DIR - randomized differential test
# of the 'jdbc' upsert sink against python3, which shares no code with
# weir: random input (keys with quotes, tabs, backslashes and non-ASCII
# characters; NULL and negative values) -> GROUP BY key (COUNT(*),
# COUNT(v), SUM(v), MIN(v), MAX(v)) -> PostgreSQL, and a top-1 per key
# (its displaced rows are deletes) -> a second table, and GROUP BY key
# HAVING (a count not a multiple of 3) into a table keyed (key, count),
# where each -U must delete its row. Each round draws the
# batch size, the parallelism, the flush size and the delivery guarantee;
# the tables must equal python's aggregate of the same input. Then the
# join family (below) at parallelism 1, 2 and 4.
#
# WEIR_PG_DIFF_SEED replays a run; WEIR_PG_DIFF_ROUNDS (default 4) rounds.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC_DIR=$(cd "$2" && pwd)
SEED=${WEIR_PG_DIFF_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROUNDS=${WEIR_PG_DIFF_ROUNDS:-4}
echo "test_pg_sink_diff: seed $SEED (WEIR_PG_DIFF_SEED=$SEED replays it), $ROUNDS rounds"
T=$(mktemp -d /tmp/weir-pg-diff-XXXXXX)
. "$SRC_DIR/tests/support/pg_server.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $* (seed $SEED)"; [ -f log ] && tail -5 log; exit 1; }
pg_start "$T/pg" || fail "cannot start PostgreSQL"
URL="jdbc:postgresql://127.0.0.1:$PGPORT/postgres"
q() { psql -AtqX -v ON_ERROR_STOP=1 -c "$1"; }
q "CREATE TABLE agg (k text PRIMARY KEY, n bigint, nv bigint, s bigint, mn bigint, mx bigint);
   CREATE TABLE top1 (k text, v bigint, PRIMARY KEY (k, v));
   CREATE TABLE hv (k text, n bigint, PRIMARY KEY (k, n))"

for ((round = 1; round <= ROUNDS; round++)); do
    rs=$((SEED * 100 + round))
    # The input (CSV) and the round's settings, from python's generator.
    read -r batch par maxrows guar < <(python3 - "$rs" <<'EOF'
import csv, random, sys
r = random.Random(int(sys.argv[1]))
keys = ["k%d" % i for i in range(r.randint(1, 80))] + ["it's", "tab\there", "back\\slash", "caf\u00e9", "q\"uote", "comma,key"]
n = r.randint(1, 6000)
with open("in.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    for i in range(n):
        v = "" if r.random() < 0.1 else str(r.randint(-10**9, 10**9))
        w.writerow([r.choice(keys), v, i])
print(r.choice([1, 3, 64, 1024]), r.choice([1, 2]), r.choice([1, 7, 100, 5000]),
      r.choice(["at-least-once", "exactly-once", "none"]))
EOF
)
    cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, seq BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE a (k STRING, n BIGINT, nv BIGINT, s BIGINT, mn BIGINT, mx BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'agg', 'username' = 'postgres',
        'sink.buffer-flush.max-rows' = '$maxrows', 'sink.delivery-guarantee' = '$guar');
CREATE TABLE t (k STRING, v BIGINT, PRIMARY KEY (k, v) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'top1', 'username' = 'postgres',
        'sink.buffer-flush.max-rows' = '$maxrows', 'sink.delivery-guarantee' = '$guar');
CREATE TABLE h (k STRING, n BIGINT, PRIMARY KEY (k, n) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'hv', 'username' = 'postgres',
        'sink.buffer-flush.max-rows' = '$maxrows', 'sink.delivery-guarantee' = '$guar');
INSERT INTO a SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v) FROM src GROUP BY k;
INSERT INTO h SELECT k, COUNT(*) FROM src GROUP BY k HAVING MOD(COUNT(*), 3) <> 0;
INSERT INTO t SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn
  FROM src WHERE v IS NOT NULL) WHERE rn <= 1;
EOF
    q "TRUNCATE agg; TRUNCATE top1; TRUNCATE hv"
    rm -rf ckpt
    [ -n "${WEIR_PG_DIFF_ONLY:-}" ] && [ "$round" != "$WEIR_PG_DIFF_ONLY" ] && continue
    "$WEIR" run job.sql -D weir.batch-size="$batch" -D parallelism.default="$par" \
        -D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=20ms > /dev/null 2> log ||
        fail "round $round: the job failed"
    psql -AtqX -F $'\x1f' -R $'\x1e' -c "SELECT k, n, nv, coalesce(s::text, 'NULL'), coalesce(mn::text, 'NULL'), coalesce(mx::text, 'NULL') FROM agg" > agg.out
    psql -AtqX -F $'\x1f' -R $'\x1e' -c "SELECT k, v FROM top1" > top.out
    psql -AtqX -F $'\x1f' -R $'\x1e' -c "SELECT k, n FROM hv" > hv.out
    python3 - <<'EOF' || fail "round $round (batch $batch, parallelism $par, max-rows $maxrows, $guar): PostgreSQL differs from python"
import csv, sys
agg, top = {}, {}
with open("in.csv", newline="") as f:
    for k, v, _ in csv.reader(f):
        a = agg.setdefault(k, [0, 0, None, None, None])
        a[0] += 1
        if v != "":
            v = int(v)
            a[1] += 1
            a[2] = v if a[2] is None else a[2] + v
            a[3] = v if a[3] is None else min(a[3], v)
            a[4] = v if a[4] is None else max(a[4], v)
            top[k] = v if k not in top else max(top[k], v)
def rows(path):
    data = open(path, encoding="utf-8").read()
    if data.endswith("\n"):
        data = data[:-1]  # psql ends its output with a newline
    return [r.split("\x1f") for r in data.split("\x1e") if r]
want = {k: [str(x) if x is not None else "NULL" for x in a] for k, a in agg.items()}
got = {r[0]: r[1:] for r in rows("agg.out")}
bad = [k for k in set(want) | set(got) if want.get(k) != got.get(k)]
for k in sorted(bad)[:5]:
    print("  agg key %r: want %s, got %s" % (k, want.get(k), got.get(k)))
got_top = {}
for k, v in rows("top.out"):
    got_top.setdefault(k, []).append(int(v))
want_top = {k: [v] for k, v in top.items()}
bad_top = [k for k in set(want_top) | set(got_top) if want_top.get(k) != got_top.get(k)]
for k in sorted(bad_top)[:5]:
    print("  top-1 key %r: want %s, got %s" % (k, want_top.get(k), got_top.get(k)))
# GROUP BY k into a table keyed (k, n), rows filtered by HAVING: each -U
# must delete its row, as its +U goes to another key or nowhere.
want_hv = sorted((k, str(a[0])) for k, a in agg.items() if a[0] % 3 != 0)
got_hv = sorted(tuple(r) for r in rows("hv.out"))
if want_hv != got_hv:
    print("  having table: want %d rows, got %d; first differences: %s" % (
        len(want_hv), len(got_hv), sorted(set(want_hv) ^ set(got_hv))[:5]))
sys.exit(1 if bad or bad_top or want_hv != got_hv else 0)
EOF
    echo "  round $round: $(wc -l < in.csv) rows, $(q 'SELECT count(*) FROM agg') keys (batch $batch, parallelism $par, max-rows $maxrows, $guar): equal"
done
# The join family: a changelog of orders whose updates move an order to
# another customer, joined with the customers (hashed by customer), into a
# table keyed by the order id. An order's old row (-U/-D) and new row
# (+U/+I) come from different join subtasks, in either order, at the sink:
# the upsert materializer puts them back in order (a -D arriving after the
# +I of the order's new version deleted it). At parallelism 1, 2 and 4.
q "CREATE TABLE oj (id int PRIMARY KEY, cust int, name text, amount bigint)"
for par in 1 2 4; do
    rs=$((SEED * 100 + 50 + par))
    read -r batch < <(python3 - "$rs" <<'EOF'
import json, random, sys
r = random.Random(int(sys.argv[1]))
n_ids, n_cust, n = r.choice([(500, 50, 20000), (40, 5, 3000), (200, 7, 8000)])
live = {}
with open("orders.json", "w") as f:
    for i in range(n):
        k = r.randrange(n_ids)
        before = live.get(k)
        if before is None:
            after = {"id": k, "cust": r.randrange(n_cust), "amount": r.randint(-1000, 1000)}
            op = "c"
        elif r.random() < 0.15:
            after = None
            op = "d"
        else:
            after = {"id": k, "cust": r.randrange(n_cust) if r.random() < 0.7 else before["cust"],
                     "amount": r.randint(-1000, 1000)}
            op = "u"
        f.write(json.dumps({"before": before, "after": after, "op": op}) + "\n")
        if after is None:
            del live[k]
        else:
            live[k] = after
with open("cust.csv", "w") as f:
    # every customer but the last has a name: orders of the last one join nothing
    for c in r.sample(range(n_cust - 1), n_cust - 1):
        f.write("%d,name %d\n" % (c, c))
json.dump({str(k): v for k, v in live.items()}, open("live.json", "w"))
print(r.choice([1, 3, 64, 1024]))
EOF
)
    cat > job.sql <<EOF
CREATE TABLE orders (id INT, cust INT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');
CREATE TABLE cust (cust INT, name STRING)
  WITH ('connector' = 'filesystem', 'path' = 'cust.csv', 'format' = 'csv');
CREATE TABLE o (id INT, cust INT, name STRING, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'oj', 'username' = 'postgres');
INSERT INTO o SELECT orders.id, orders.cust, cust.name, orders.amount FROM orders JOIN cust ON orders.cust = cust.cust;
EOF
    q "TRUNCATE oj"
    "$WEIR" run job.sql -D weir.batch-size="$batch" -D parallelism.default="$par" > /dev/null 2> log ||
        fail "join family, parallelism $par: the job failed"
    psql -AtqX -F ',' -c "SELECT id, cust, name, amount FROM oj" > oj.out
    python3 - <<'EOF' || fail "join family (batch $batch, parallelism $par): PostgreSQL differs from python"
import json, sys
live = json.load(open("live.json"))
names = {}
for line in open("cust.csv"):
    c, nm = line.rstrip("\n").split(",")
    names[int(c)] = nm
want = {int(k): "%s,%d,%s,%d" % (k, v["cust"], names[v["cust"]], v["amount"])
        for k, v in live.items() if v["cust"] in names}
got = {}
for line in open("oj.out"):
    line = line.rstrip("\n")
    if line:
        got[int(line.split(",")[0])] = line
bad = [k for k in set(want) | set(got) if want.get(k) != got.get(k)]
for k in sorted(bad)[:5]:
    print("  order %d: want %s, got %s" % (k, want.get(k), got.get(k)))
if bad:
    print("  %d of %d orders differ" % (len(bad), len(set(want) | set(got))))
sys.exit(1 if bad else 0)
EOF
    echo "  join family, parallelism $par: $(wc -l < orders.json) changes, $(q 'SELECT count(*) FROM oj') orders (batch $batch): equal"
done
[ "$(q 'SELECT count(*) FROM pg_prepared_xacts')" = 0 ] || fail "prepared transactions left"
echo "test_pg_sink_diff: passed"
