#!/usr/bin/env bash
# tests/test_pg_cdc.sh WEIR SOURCE_DIR - the postgres-cdc source against a
# real PostgreSQL server that this script starts and stops.
#
# A job reads table t as a changelog (snapshot, then the replication stream)
# and writes two debezium-json filesystem sinks, exactly once: the table
# itself, and a GROUP BY over it (COUNT, SUM, COUNT of a nullable column).
# Each sink's final state (the multiset of its "after" rows minus its
# "before" rows) must equal what PostgreSQL computes from the table at the
# end: the table's rows, and the same aggregate.
#
# 1. Snapshot then stream: inserts, updates (values, groups, the primary
#    key), deletes, upserts; the job is killed (SIGKILL) once in the middle
#    of its snapshot, after a checkpoint completed, and then at seeded random
#    moments of the stream while random DML runs (WEIR_PG_CDC_KILLS, default
#    5 kills in all).
# 2. The slot's confirmed_flush_lsn: a run that never completes a
#    checkpoint reads new changes (the server sees them received) but leaves
#    the slot where the last completed checkpoint put it; a run after a kill
#    reads those changes again and the result is still exact.
# 3. Randomized differential rounds (WEIR_PG_CDC_ROUNDS, default 1): a fresh
#    snapshot of whatever the table holds, then a random DML sequence, with
#    the job running through it; weir's aggregate against PostgreSQL's.
# 4. scan.startup.mode = latest-offset: no snapshot, only later changes; the
#    aggregate ignores a retraction of a row it never saw.
# 0b. (before 1) date and time columns read as DATE and TIME(3), in the
#    snapshot and in the stream.
#
# WEIR_PG_CDC_SEED replays a run (DML and kill moments).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
SEED=${WEIR_PG_CDC_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_PG_CDC_KILLS:-5}
ROUNDS=${WEIR_PG_CDC_ROUNDS:-1}
RANDOM=$SEED
echo "test_pg_cdc: seed $SEED (WEIR_PG_CDC_SEED=$SEED replays it), $KILLS kills, $ROUNDS rounds"

T=$(mktemp -d /tmp/weir-pg-cdc-XXXXXX)
. "$SRC/tests/support/pg_server.sh"
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2> /dev/null
    pg_stop > /dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $* (seed $SEED)"; [ -f log ] && tail -20 log; exit 1; }

pg_start "$T/pg" || fail "cannot start PostgreSQL"
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE TABLE t (id INT PRIMARY KEY, grp TEXT, v BIGINT, note TEXT);
  ALTER TABLE t REPLICA IDENTITY FULL;
  INSERT INTO t SELECT g, 'g' || (g % 8), g % 1000, CASE WHEN g % 3 = 0 THEN NULL ELSE 'n' || g END
  FROM generate_series(1, 40000) g;" || fail "cannot create the table"

cat > job.sql <<EOF
CREATE TABLE t (id INT, grp STRING, v BIGINT, note STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PGPORT',
  'username' = 'postgres', 'database-name' = 'postgres', 'schema-name' = 'public',
  'table-name' = 't', 'slot.name' = 'weir_test', 'scan.snapshot.fetch.size' = '1',
  'debezium.status.update.interval.ms' = '50');
CREATE TABLE copy (id INT, grp STRING, v BIGINT, note STRING)
  WITH ('connector' = 'filesystem', 'path' = 'copy', 'format' = 'debezium-json');
CREATE TABLE agg (grp STRING, c BIGINT, s BIGINT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'agg', 'format' = 'debezium-json');
INSERT INTO copy SELECT * FROM t;
INSERT INTO agg SELECT grp, COUNT(*), SUM(v), COUNT(note) FROM t GROUP BY grp;
EOF

# The final state of a debezium-json folder: rows with multiplicity 1, one
# canonical JSON object a line; a row with any other multiplicity is printed
# as BAD.
cat > state.py <<'EOF'
import collections, glob, json, os, sys
cnt = collections.Counter()
for f in glob.glob(sys.argv[1] + "/*"):
    if os.path.basename(f).startswith("."):
        continue
    for line in open(f):
        e = json.loads(line)
        if e["after"] is not None:
            cnt[json.dumps(e["after"], sort_keys=True)] += 1
        if e["before"] is not None:
            cnt[json.dumps(e["before"], sort_keys=True)] -= 1
out = sorted(k for k, v in cnt.items() if v == 1)
out += sorted("BAD %d %s" % (v, k) for k, v in cnt.items() if v not in (0, 1))
print("\n".join(out))
EOF
canon() { python3 -c 'import json, sys
print("\n".join(sorted(json.dumps(json.loads(l), sort_keys=True) for l in sys.stdin if l.strip())))'; }
expect() {
    psql -X -At -c "SELECT json_build_object('id', id, 'grp', grp, 'v', v, 'note', note) FROM t" | canon > exp_copy.txt
    psql -X -At -c "SELECT json_build_object('grp', grp, 'c', count(*), 's', sum(v), 'n', count(note))
                    FROM t GROUP BY grp" | canon > exp_agg.txt
}
# Waits (bounded) until both sinks show exactly the table's final state.
converge() { # $1: what for the message
    expect
    for ((w = 0; w < 600; w++)); do
        python3 state.py copy > got_copy.txt
        python3 state.py agg > got_agg.txt
        cmp -s exp_copy.txt got_copy.txt && cmp -s exp_agg.txt got_agg.txt && return 0
        [ -n "$PID" ] && ! kill -0 "$PID" 2> /dev/null && break
        sleep 0.1
    done
    diff exp_agg.txt got_agg.txt | head -5
    diff exp_copy.txt got_copy.txt | head -5
    fail "$1: the sinks do not hold the table's final state"
}
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms)
JOB=job.sql
start_job() { "$WEIR" run "$JOB" "${CK[@]}" "$@" > /dev/null 2>> log & PID=$!; }
kill_job() { kill -9 "$PID" 2> /dev/null; wait "$PID" 2> /dev/null; PID=; }
checkpoints() { compgen -G "ckpt/*/chk-*/_metadata" > /dev/null || compgen -G "ckpt/chk-*/_metadata" > /dev/null; }
# The id of the latest completed checkpoint (0: none yet); older ones are
# deleted as newer ones complete, so count by id, not by folders.
ncheckpoints() { { compgen -G "ckpt/*/chk-*/_metadata"; compgen -G "ckpt/chk-*/_metadata"; } |
    sed 's|.*/chk-\([0-9]*\)/_metadata|\1|' | sort -n | tail -1 | grep . || echo 0; }
snapshotting() { [ "$(psql -X -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'weir-cdc-snapshot'")" != 0 ]; }
confirmed() { psql -X -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'weir_test'"; }
lsn_le() { [ "$(psql -X -At -c "SELECT '$1'::pg_lsn <= '$2'::pg_lsn")" = t ]; }
# Waits (bounded) until the job reads replication slot $1.
slot_active() {
    for ((w = 0; w < 600; w++)); do
        [ "$(psql -X -At -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$1' AND active")" = 1 ] && return
        sleep 0.05
    done
}
# await_sink WHAT EXPECTED GOT: waits (bounded, or until the job ends) until
# `state.py WHAT` prints the file EXPECTED (its last output is left in GOT).
await_sink() {
    for ((w = 0; w < 600; w++)); do
        python3 state.py "$1" > "$3"
        cmp -s "$2" "$3" && return
        kill -0 "$PID" 2> /dev/null || return
        sleep 0.1
    done
}

# ---- 0. a table without REPLICA IDENTITY FULL is refused, saying what to run ----
"${PSQL[@]}" -c "CREATE TABLE plain (id INT PRIMARY KEY, v BIGINT)" || fail "cannot create a table"
sed "s/'table-name' = 't', 'slot.name' = 'weir_test'/'table-name' = 'plain', 'slot.name' = 'weir_plain'/;
     s/CREATE TABLE t (id INT, grp STRING, v BIGINT, note STRING,/CREATE TABLE t (id INT, v BIGINT,/" job.sql |
    grep -v "^INSERT INTO agg\|^INSERT INTO copy" > plain.sql
echo "INSERT INTO copy SELECT id, CAST(NULL AS STRING), v, CAST(NULL AS STRING) FROM t;" >> plain.sql
"$WEIR" run plain.sql > /dev/null 2> plain.log && fail "a table without REPLICA IDENTITY FULL was read"
grep -q "ALTER TABLE public.plain REPLICA IDENTITY FULL" plain.log || { cat plain.log; fail "the refusal does not say what to run"; }
rm -rf copy agg

# ---- 0b. date and time columns: snapshot and stream ----
# (its own slot and publication: the default publication is created FOR
# TABLE the first table streamed, and the later sections stream table t)
"${PSQL[@]}" -c "CREATE TABLE dtt (id INT PRIMARY KEY, d date, tm time(3));
  ALTER TABLE dtt REPLICA IDENTITY FULL;
  INSERT INTO dtt VALUES (1, '2020-01-31', '12:34:56.789'), (2, '1969-12-31', NULL)" || fail "cannot create dtt"
cat > job_dt.sql <<EOF
CREATE TABLE dtt (id INT, d DATE, tm TIME(3), PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PGPORT',
  'username' = 'postgres', 'database-name' = 'postgres', 'schema-name' = 'public',
  'table-name' = 'dtt', 'slot.name' = 'weir_dt', 'debezium.publication.name' = 'weir_dt',
  'debezium.status.update.interval.ms' = '50');
CREATE TABLE dcopy (id INT, d DATE, tm TIME(3))
  WITH ('connector' = 'filesystem', 'path' = 'dcopy', 'format' = 'debezium-json');
INSERT INTO dcopy SELECT * FROM dtt;
EOF
JOB=job_dt.sql
start_job
slot_active weir_dt
"${PSQL[@]}" -c "INSERT INTO dtt VALUES (3, '0001-01-01', '23:59:59.999'), (4, NULL, '00:00:00.001');
  UPDATE dtt SET tm = '08:00:00.5' WHERE id = 2" || fail "DML on dtt failed"
printf '%s\n' '{"d": "0001-01-01", "id": 3, "tm": "23:59:59.999"}' '{"d": "1969-12-31", "id": 2, "tm": "08:00:00.5"}' \
    '{"d": "2020-01-31", "id": 1, "tm": "12:34:56.789"}' '{"d": null, "id": 4, "tm": "00:00:00.001"}' > exp_dt.txt
await_sink dcopy exp_dt.txt got_dt.txt
cmp -s exp_dt.txt got_dt.txt || { diff exp_dt.txt got_dt.txt; fail "date/time columns: wrong rows"; }
kill_job
rm -rf ckpt dcopy
echo "  date and time columns: snapshot and stream read as DATE and TIME(3)"
JOB=job.sql

# ---- 1. snapshot, stream, kills ----
# A kill in the middle of the snapshot, once a checkpoint taken during the
# snapshot has completed. The snapshot's connection opens after the slot is
# created (checkpoints may complete before it), and how long it reads
# depends on the machine's load; so wait for it, then for one more completed
# checkpoint while it still reads, and when the snapshot ends first, start
# again from nothing (job state, sinks and slot) - at most 5 times.
kill_in_snapshot() {
    local w before
    start_job
    for ((w = 0; w < 3000; w++)); do snapshotting && break; kill -0 "$PID" 2> /dev/null || return 1; done
    snapshotting || return 1
    before=$(ncheckpoints)
    for ((w = 0; w < 3000; w++)); do [ "$(ncheckpoints)" -gt "$before" ] && break; sleep 0.01; done
    [ "$(ncheckpoints)" -gt "$before" ] && snapshotting
}
for ((try = 1; ; try++)); do
    kill_in_snapshot && break
    kill_job
    [ "$try" -lt 5 ] || fail "the snapshot ended before a checkpoint completed in it, 5 times: nothing to kill in it"
    echo "  try $try: the snapshot ended before a checkpoint completed in it; again from nothing"
    rm -rf ckpt copy agg
    for ((w = 0; w < 100; w++)); do
        psql -X -q -c "SELECT pg_drop_replication_slot('weir_test')" > /dev/null 2>&1 && break
        sleep 0.1
    done
done
kills=0
kill_job
kills=$((kills + 1))
echo "  killed in the snapshot [$SECONDS s]"
python3 "$SRC/tests/support/pg_dml.py" "$SEED" 100 40001 50000 0.01 > dml1.sql
psql -X -q -v ON_ERROR_STOP=1 -f dml1.sql > dml.log 2>&1 &
DML=$!
for ((i = 2; i <= KILLS; i++)); do
    start_job
    sleep "$(awk -v d=$(( RANDOM % 700 + 200 )) 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -0 "$PID" 2> /dev/null || fail "the job ended by itself"
    kill_job
    kills=$((kills + 1))
done
wait "$DML" || { cat dml.log; fail "the DML script failed"; }
start_job
converge "after $kills kills"
echo "  $kills kills: the copy ($(wc -l < got_copy.txt) rows) and the aggregate equal the table [$SECONDS s]"

# ---- 2. the slot's confirmed position follows completed checkpoints ----
kill_job
c1=$(confirmed)
[ -n "$c1" ] && lsn_le 0/1 "$c1" || fail "the slot confirmed nothing though checkpoints completed"
python3 "$SRC/tests/support/pg_dml.py" $((SEED + 1)) 30 50400 60000 > dml2.sql
psql -X -q -v ON_ERROR_STOP=1 -f dml2.sql > dml.log 2>&1 || { cat dml.log; fail "the DML script failed"; }
# the insert position: with synchronous_commit off the write position can
# lag behind the last commit
end=$(psql -X -At -c "SELECT pg_current_wal_insert_lsn()")
# No checkpoint completes in this run (the first would be due in an hour).
"$WEIR" run job.sql -D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=1h > /dev/null 2>> log &
PID=$!
for ((w = 0; w < 600; w++)); do
    wl=$(psql -X -At -c "SELECT write_lsn FROM pg_stat_replication WHERE application_name = 'weir-cdc'")
    [ -n "$wl" ] && lsn_le "$end" "$wl" && break
    sleep 0.05
done
[ -n "$wl" ] && lsn_le "$end" "$wl" || fail "the job did not read the new changes (received $wl, wanted $end)"
c2=$(confirmed)
[ "$c2" = "$c1" ] || fail "the slot's confirmed_flush_lsn moved from $c1 to $c2 without a completed checkpoint"
kill_job
start_job
converge "after a run that completed no checkpoint"
# With checkpoints completing again the slot moves on (to the last
# transaction the latest completed checkpoint covers; the server's own
# transactions, autovacuum's say, count too, so no upper bound is checked
# against the DML's end).
for ((w = 0; w < 300; w++)); do
    c3=$(confirmed)
    [ "$c3" != "$c1" ] && break
    sleep 0.05
done
[ "$c3" != "$c1" ] || fail "confirmed_flush_lsn stayed at $c1 though checkpoints completed"
echo "  confirmed_flush_lsn stayed at $c1 without checkpoints, then exact after a restart [$SECONDS s]"
kill_job

# ---- 3. randomized differential rounds ----
# (the snapshot in larger fetches: these rounds are about the stream)
sed "s/'scan.snapshot.fetch.size' = '1'/'scan.snapshot.fetch.size' = '2000'/" job.sql > job_rounds.sql
JOB=job_rounds.sql
for ((round = 1; round <= ROUNDS; round++)); do
    rm -rf copy agg ckpt
    start_job
    python3 "$SRC/tests/support/pg_dml.py" $((SEED + 100 + round)) 80 60200 $((100000 * (round + 1))) 0.002 > dmlr.sql
    psql -X -q -v ON_ERROR_STOP=1 -f dmlr.sql > dml.log 2>&1 || { cat dml.log; fail "the DML script failed"; }
    converge "round $round"
    kill_job
    echo "  round $round: the aggregate equals PostgreSQL's ($(wc -l < got_agg.txt) groups) [$SECONDS s]"
done
# ---- 4. latest-offset: only the changes from the start on; the aggregate
# ignores the retraction of a row it never saw (as Flink's does) ----
rm -rf copy agg ckpt
sed "s/'slot.name' = 'weir_test'/'slot.name' = 'weir_latest', 'scan.startup.mode' = 'latest-offset'/" \
    job_rounds.sql > job_latest.sql
JOB=job_latest.sql
start_job
slot_active weir_latest
"${PSQL[@]}" -c "INSERT INTO t VALUES (900001, 'latest', 5, NULL);
  UPDATE t SET v = 42, grp = 'moved', note = 'x' WHERE id = (SELECT min(id) FROM t)" || fail "DML failed"
printf '%s\n' '{"c": 1, "grp": "latest", "n": 0, "s": 5}' '{"c": 1, "grp": "moved", "n": 1, "s": 42}' > exp_latest.txt
await_sink agg exp_latest.txt got_latest.txt
cmp -s exp_latest.txt got_latest.txt || { diff exp_latest.txt got_latest.txt; fail "latest-offset: wrong aggregate"; }
kill_job
echo "  latest-offset: only the new changes, a retraction of an unseen row ignored"
echo "test_pg_cdc: ok ($SECONDS s)"
