#!/usr/bin/env bash
# tests/test_sink_materialize_restore.sh WEIR SOURCE_DIR - the upsert
# materializer's state through a savepoint, in SQL. A job watching a folder
# joins each id's latest customer (MAX(cust), ids with 3 rows or more
# dropped by HAVING) with the customers' names into a debezium-json table
# with PRIMARY KEY (id) under table.exec.sink.upsert-materialize = FORCE,
# at parallelism 2 on the memory backend. Once its output shows the first
# file's table it is stopped with `weir savepoint PID --stop`; a second file
# moves ids to other customers (their -D and +I come from two join
# subtasks) and deletes ids written before the stop. The job restored from
# the savepoint at parallelism 3 on RocksDB must end, folded as upserts by
# key (a create sets the key's row, a delete removes it and must find it),
# at the table python computes from both files: a materializer restored
# without its rows would ignore the deletes of rows it held and leave them.
# Every wait polls the output (bounded).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
restore_init upm-restore "$1"

# rows(SEED, N, LO, HI): id, cust with cust in [LO, HI]
rows() { awk -v s="$1" -v n="$2" -v lo="$3" -v hi="$4" 'BEGIN { srand(s); for (i = 0; i < n; i++)
    printf "%d,%d\n", int(rand() * 60), lo + int(rand() * (hi - lo + 1)) }'; }
mkdir in names
rows 1 80 0 5 > in/a.csv
for c in 0 1 2 3 4 5 6 7 8 9; do echo "$c,name$c"; done > names/n.csv
cat > job.sql <<'SQL'
SET 'table.exec.sink.upsert-materialize' = 'FORCE';
CREATE TABLE src (id INT, cust INT)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '50ms');
CREATE TABLE names (cust INT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'names', 'format' = 'csv', 'source.monitor-interval' = '50ms');
CREATE TABLE dst (id INT, cust INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'dst', 'format' = 'debezium-json');
INSERT INTO dst SELECT o.id, o.cust, n.name
FROM (SELECT id, MAX(cust) AS cust FROM src GROUP BY id HAVING COUNT(*) < 3) o JOIN names n ON o.cust = n.cust;
SQL
# oracle: the table from the input files (no code shared with weir)
oracle() {
    cat in/*.csv | awk -F, '{ n[$1]++; if (!($1 in m) || $2 > m[$1]) m[$1] = $2 }
        END { for (i in n) if (n[i] < 3) printf "%d|%d|name%d\n", i, m[i], m[i] }' | LC_ALL=C sort
}
# fold DIR...: the folders' debezium-json changes applied as upserts by id, folder after folder, each
# folder's files in name order (a sink subtask's files in the order it wrote them; an id lives in one)
fold() {
    python3 - "$@" <<'PY'
import json, os, sys
rows = {}
for folder in sys.argv[1:]:
    names = sorted(n for n in os.listdir(folder) if not n.startswith(".")) if os.path.isdir(folder) else []
    for name in names:
        for line in open(os.path.join(folder, name)):
            if not line.strip():
                continue
            e = json.loads(line)
            if e["op"] == "c":
                rows[e["after"]["id"]] = "%d|%d|%s" % (e["after"]["id"], e["after"]["cust"], e["after"]["name"])
            elif e["op"] == "d":
                if rows.pop(e["before"]["id"], None) is None:
                    print("a delete of id %d, not there" % e["before"]["id"])
            else:
                print("op %s" % e["op"])
print("\n".join(sorted(rows.values())))
PY
}
# wait_table WANT DIR...: until the folders fold to WANT (at most 60 s)
wait_table() {
    local want=$1 end=$((SECONDS + 60))
    shift
    while [ $SECONDS -lt $end ]; do
        [ "$(fold "$@" | LC_ALL=C sort)" = "$want" ] && return 0
        sleep 0.2
    done
    return 1
}

CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=100ms)
want1=$(oracle)
[ "$(echo "$want1" | wc -l)" -ge 20 ] || fail "unexpected first table"
"$WEIR" run job.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> log &
pid=$!
wait_table "$want1" dst || { diff <(fold dst | LC_ALL=C sort) <(echo "$want1") | head; fail "the first run never showed the first file's table"; }
sp=$("$WEIR" savepoint "$pid" --stop 2> sp.err) || fail "savepoint --stop failed: $(cat sp.err)"
for ((i = 0; i < 600; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
wait "$pid"
st=$?
pid=
[ $st -eq 0 ] || fail "the job stopped with a savepoint exited $st"
[ -d "$sp" ] || fail "savepoint --stop printed no folder: $sp"
mv dst out1
# the second file: ids move to customers 6-9 (another join subtask), and ids reaching 3 rows are deleted
rows 2 90 6 9 > in/b.csv
want2=$(oracle)
[ "$want1" != "$want2" ] || fail "the second file does not change the table"
gone=$(comm -23 <(echo "$want1" | cut -d'|' -f1 | LC_ALL=C sort) <(echo "$want2" | cut -d'|' -f1 | LC_ALL=C sort) | wc -l)
[ "$gone" -gt 0 ] || fail "the second file deletes no id of the first table"
"$WEIR" run job.sql "${CK[@]}" --from "$sp" -D parallelism.default=3 -D state.backend.type=rocksdb \
    -D weir.state.dir=state > /dev/null 2> log &
pid=$!
wait_table "$want2" out1 dst || { diff <(fold out1 dst | LC_ALL=C sort) <(echo "$want2") | head; fail "the restored run does not fold to the table of both files"; }
kill -s INT "$pid" 2> /dev/null
for ((i = 0; i < 600; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
wait "$pid"
pid=
grep -q "restoring from" log || fail "the second run did not restore"
echo "test_sink_materialize_restore: savepoint at parallelism 2 (memory), restored at 3 (RocksDB): $gone ids deleted, $(echo "$want2" | wc -l) rows equal the oracle"
