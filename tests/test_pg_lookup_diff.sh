#!/usr/bin/env bash
# tests/test_pg_lookup_diff.sh WEIR SOURCE_DIR - a randomized differential
# test of the lookup join against a 'connector' = 'jdbc' table: a random
# dimension table in a PostgreSQL server this script starts (several rows
# per key, NULL keys and names), a random stream of keys in a CSV file, and
# LEFT and INNER lookup joins with a condition on the table, through a
# random cache configuration (none, or a partial cache small enough to be
# emptied while the job runs). The dimension table does not change during
# a run, so every configuration must give exactly the join python3
# computes from the same rows. Then a fixed case with DATE and TIME keys.
#
# WEIR_PG_LOOKUP_SEED replays a run; WEIR_PG_LOOKUP_ROUNDS (default 2).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
SEED=${WEIR_PG_LOOKUP_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROUNDS=${WEIR_PG_LOOKUP_ROUNDS:-2}
echo "test_pg_lookup_diff: seed $SEED (WEIR_PG_LOOKUP_SEED=$SEED replays it), $ROUNDS rounds"

T=$(mktemp -d /tmp/weir-pg-lookup-XXXXXX)
. "$SRC/tests/support/pg_server.sh"
cleanup() { pg_stop > /dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $* (seed $SEED)"; [ -f log ] && tail -20 log; exit 1; }
pg_start "$T/pg" || fail "cannot start PostgreSQL"

for ((round = 1; round <= ROUNDS; round++)); do
    s=$((SEED * 31 + round))
    python3 - "$s" <<'EOF' || fail "cannot make the round's data"
import random, sys
rnd = random.Random(int(sys.argv[1]))
with open("dim.sql", "w") as f:
    f.write("SET client_min_messages = warning; DROP TABLE IF EXISTS dim; CREATE TABLE dim (id INT PRIMARY KEY, k BIGINT, name TEXT, w BIGINT);\n")
    for i in range(rnd.randrange(0, 300)):
        k = "NULL" if rnd.random() < 0.05 else str(rnd.randrange(60))
        name = "NULL" if rnd.random() < 0.1 else "'n%d''%s'" % (i, rnd.choice(["", "x", "é"]))
        f.write("INSERT INTO dim VALUES (%d, %s, %s, %d);\n" % (i, k, name, rnd.randrange(-5, 30)))
with open("in.csv", "w") as f:
    for i in range(rnd.randrange(1, 3000)):
        f.write("%d,%s\n" % (i, "" if rnd.random() < 0.03 else rnd.randrange(70)))
cache = rnd.choice([
    "",
    ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '%d'" % rnd.randrange(1, 40),
    ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-access' = '1 h', "
    "'lookup.partial-cache.cache-missing-key' = '%s'" % rnd.choice(["true", "false"]),
    ", 'lookup.cache.max-rows' = '1000', 'lookup.cache.ttl' = '1 min'",
])
join = rnd.choice(["LEFT", "INNER"])
open("cfg", "w").write("%s\n%s\n" % (join, cache))
EOF
    psql -X -q -v ON_ERROR_STOP=1 -f dim.sql > /dev/null || fail "cannot load the table"
    JOIN=$(sed -n 1p cfg)
    CACHE=$(sed -n 2p cfg)
    cat > job.sql <<EOF
CREATE TABLE src (id INT, k BIGINT, pt AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dim (id INT, k BIGINT, name STRING, w BIGINT) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PGPORT/postgres',
  'table-name' = 'dim', 'username' = 'postgres'$CACHE);
CREATE TABLE out (id INT, k BIGINT, did INT, name STRING, w BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO out SELECT s.id, s.k, d.id, d.name, d.w
FROM src AS s $JOIN JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k AND d.w > 3;
EOF
    rm -rf out
    "$WEIR" run job.sql -D weir.batch-size=$(( (s % 5) * 97 + 3 )) > /dev/null 2> log ||
        "$WEIR" run job.sql > /dev/null 2> log || fail "round $round: the job failed"
    psql -X -At -F, -c "SELECT id, coalesce(k::text, ''), coalesce(name, '<null>'), w FROM dim" > dim.csv
    python3 - "$JOIN" <<'EOF' > want.txt || fail "the oracle failed"
import csv, json, sys
left = sys.argv[1] == "LEFT"
dim = {}
for row in csv.reader(open("dim.csv")):
    i, k, name, w = row[0], row[1], ",".join(row[2:-1]), row[-1]
    if k == "" or int(w) <= 3:
        continue
    dim.setdefault(int(k), []).append((int(i), None if name == "<null>" else name, int(w)))
out = []
for line in open("in.csv"):
    i, k = line.rstrip("\n").split(",")
    key = int(k) if k else None
    matches = dim.get(key, []) if key is not None else []
    for d in matches:
        out.append({"id": int(i), "k": key, "did": d[0], "name": d[1], "w": d[2]})
    if not matches and left:
        out.append({"id": int(i), "k": key, "did": None, "name": None, "w": None})
print("\n".join(sorted(json.dumps(o, sort_keys=True, ensure_ascii=False) for o in out)))
EOF
    find out -type f ! -name '.*' -exec cat {} + | python3 -c 'import json, sys
print("\n".join(sorted(json.dumps(json.loads(l), sort_keys=True, ensure_ascii=False) for l in sys.stdin if l.strip())))' > got.txt
    cmp -s want.txt got.txt || { diff want.txt got.txt | head -5; fail "round $round ($JOIN join, cache:$CACHE): weir differs from python3"; }
    echo "  round $round: $JOIN join, $(wc -l < got.txt) rows, cache:${CACHE:- none}"
done

# DATE and TIME key columns (sent as date[] and time[] parameters) and
# values (read from their text form); the expected rows are hand-derived.
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE dt (id INT, d date, tm time(3), name TEXT);
  INSERT INTO dt VALUES (1, '2020-01-31', '12:34:56.789', 'a'), (2, '2020-01-31', '08:00:00', 'b'),
    (3, '1969-12-31', '12:34:56.789', 'c'), (4, NULL, '00:00:00', 'd')" || fail "cannot load the DATE/TIME table"
printf '%s\n' 1,2020-01-31,12:34:56.789 2,2020-01-31,08:00:00 3,1969-12-31,12:34:56.789 \
    4,1969-12-31,08:00:00 5,,00:00:00 > dt.csv
cat > dt.sql <<EOF
CREATE TABLE src (id INT, d DATE, tm TIME(3), pt AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'dt.csv', 'format' = 'csv');
CREATE TABLE dt (id INT, d DATE, tm TIME(3), name STRING) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PGPORT/postgres',
  'table-name' = 'dt', 'username' = 'postgres');
CREATE TABLE out (id INT, did INT, d STRING, tm STRING, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'dt_out', 'format' = 'csv');
INSERT INTO out SELECT s.id, t.id, CAST(t.d AS STRING), CAST(t.tm AS STRING), t.name
FROM src AS s LEFT JOIN dt FOR SYSTEM_TIME AS OF s.pt AS t ON s.d = t.d AND s.tm = t.tm;
EOF
"$WEIR" run dt.sql > /dev/null 2> log || fail "the DATE/TIME lookup job failed"
got=$(find dt_out -type f ! -name '.*' -exec cat {} + | sort)
want="1,1,2020-01-31,12:34:56.789,a
2,2,2020-01-31,08:00:00.000,b
3,3,1969-12-31,12:34:56.789,c
4,,,,
5,,,,"
[ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; fail "the DATE/TIME lookup differs"; }
echo "  DATE and TIME keys and values: as expected"
echo "test_pg_lookup_diff: ok"
