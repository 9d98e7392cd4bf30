#!/usr/bin/env bash
# tests/test_pg_sink_crash.sh WEIR SOURCE_DIR - exactly-once into PostgreSQL
# under failures. One Kafka-free job (a CSV file -> TUMBLE window ->
# 'jdbc' sink with 'sink.delivery-guarantee' = 'exactly-once', and the same
# file -> GROUP BY -> an upsert 'jdbc' sink, exactly-once too) checkpointing
# every 50 ms:
#   1. is killed with SIGKILL at random moments (seeded) and restarted with
#      the same checkpoint folder; after every kill the window table holds
#      no row that an uninterrupted run does not write, and no row twice;
#      after the last run both tables equal the uninterrupted run's and no
#      prepared transaction is left;
#   2. runs while the server is crashed (pg_ctl stop -m immediate) and
#      started again: a rate-limited generator -> TUMBLE and GROUP BY ->
#      exactly-once tables; the job fails its attempt, the restart
#      strategy restores the last checkpoint, and the tables end equal to
#      awk's computation of the same sequence, no prepared transaction left.
#
# WEIR_PG_CRASH_SEED replays a kill schedule; WEIR_PG_CRASH_KILLS (default
# 20) and WEIR_PG_CRASH_ROWS change the size.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC_DIR=$(cd "$2" && pwd)
SEED=${WEIR_PG_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_PG_CRASH_KILLS:-20}
ROWS=${WEIR_PG_CRASH_ROWS:-60000}
if ldd "$WEIR" 2>/dev/null | grep -q libasan; then ROWS=${WEIR_PG_CRASH_ROWS:-40000}; fi
RANDOM=$SEED
echo "test_pg_sink_crash: seed $SEED (WEIR_PG_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

T=$(mktemp -d /tmp/weir-pg-crash-XXXXXX)
. "$SRC_DIR/tests/support/pg_server.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $* (seed $SEED)"; [ -f log ] && tail -8 log; exit 1; }
pg_start "$T/pg" || fail "cannot start PostgreSQL"
URL="jdbc:postgresql://127.0.0.1:$PGPORT/postgres"
q() { psql -AtqX -v ON_ERROR_STOP=1 -c "$1"; }
prepared() { q "SELECT count(*) FROM pg_prepared_xacts"; }

awk -v n="$ROWS" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    ts = 1000000 + i * 3 + int(rand() * 300); if (i % 997 == 0) ts -= 30000;
    printf "k%d,%d,%d\n", int(rand() * 60), int(rand() * 1000), ts } }' > in.csv
q "CREATE TABLE win (k text, ws timestamp(3), we timestamp(3), c bigint, s bigint);
   CREATE TABLE agg (k text PRIMARY KEY, c bigint, s bigint, mn bigint, mx bigint)"
cat > job.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE w (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'win', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.buffer-flush.max-rows' = '200');
CREATE TABLE a (k STRING, c BIGINT, s BIGINT, mn BIGINT, mx BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'agg', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO w SELECT k, window_start, window_end, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO a SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM src GROUP BY k;
EOF
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=50ms -D parallelism.default=2)
win_rows() { q "SELECT k, ws, c, s FROM win" | LC_ALL=C sort; }
agg_rows() { q "SELECT k, c, s, mn, mx FROM agg" | LC_ALL=C sort; }
reset() { q "TRUNCATE win; TRUNCATE agg"; rm -rf ckpt log; }

# The reference: one uninterrupted run.
start=$(date +%s%N)
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2> log || fail "the reference run failed"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
win_rows > ref_win.txt
agg_rows > ref_agg.txt
[ "$(wc -l < ref_win.txt)" -gt 1000 ] && [ "$(wc -l < ref_agg.txt)" -eq 60 ] || fail "the reference run wrote too little"
echo "  reference: $(wc -l < ref_win.txt) window rows, 60 keys, in $ref_ms ms"

# ---- 1. kill -9 at random moments ----
# Kills until KILLS of them hit a running job; a run that ends before its
# kill completes the job: the tables are checked, emptied, and the job
# starts over from nothing.
check_final() { # $1: what
    win_rows | cmp -s - ref_win.txt || { win_rows | diff ref_win.txt - | head -5; fail "window table differs ($1)"; }
    agg_rows | cmp -s - ref_agg.txt || { agg_rows | diff ref_agg.txt - | head -5; fail "upsert table differs ($1)"; }
    [ "$(prepared)" = 0 ] || fail "prepared transactions left ($1)"
}
reset
kills=0 completed=0 prepared_seen=0 attempts=0 recovered=0
while [ $kills -lt "$KILLS" ]; do
    attempts=$((attempts + 1))
    [ $attempts -le $((KILLS * 4)) ] || fail "only $kills of $attempts kills hit a running job"
    delay=$(( RANDOM % (ref_ms > 200 ? ref_ms : 200) + 1 ))
    "$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log &
    pid=$!
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
    st=$?
    if [ $st -eq 0 ]; then
        completed=$((completed + 1))
        check_final "a run that completed after $kills kills"
        recovered=$((recovered + $(grep -c "prepared transactions\? of an earlier run" log)))
        reset
        continue
    fi
    [ $st -eq 137 ] || fail "attempt $attempts exited $st"
    kills=$((kills + 1))
    [ "$(prepared)" -gt 0 ] && prepared_seen=$((prepared_seen + 1))
    # What a reader sees is a part of the uninterrupted run's output, each
    # row at most once (comm counts repeated lines).
    win_rows > got.txt
    extra=$(LC_ALL=C comm -13 ref_win.txt got.txt | head -3)
    [ -z "$extra" ] || fail "after kill $kills (${delay} ms): rows an uninterrupted run does not write, or twice: $extra"
done
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2>> log || fail "the last run failed"
check_final "after the last kill"
recovered=$((recovered + $(grep -c "prepared transactions\? of an earlier run" log)))
echo "  [${SECONDS}s] $kills kills, $completed completed runs between them; $prepared_seen kills left prepared transactions, $recovered starts resolved some: both tables equal the reference every time"

# ---- 1b. a restored run that ends before its first checkpoint ----
# A run killed after its 5th PREPARE (a checkpoint after chk-1, whose four
# came first) is restored by a run whose only checkpoint is its final one,
# killed after its first PREPARE; the next run restores the same
# checkpoint. The second run's final transaction must carry an id above the
# restored one, or the third counts it as covered by that checkpoint,
# commits it and writes its rows again (it was tagged 1).
reset
# (checkpoints every 10 ms: a run of this input takes many, so its 5th PREPARE comes)
WEIR_TEST_PG_SINK_CRASH=prepare:5 "$WEIR" run job.sql "${CK[@]}" -D execution.checkpointing.interval=10ms \
    > /dev/null 2>> log
[ $? -eq 137 ] || fail "the run to kill at its 5th PREPARE was not killed there"
CK60=("${CK[@]}" -D execution.checkpointing.interval=60s)
WEIR_TEST_PG_SINK_CRASH=prepare:1 "$WEIR" run job.sql "${CK60[@]}" > /dev/null 2>> log
[ $? -eq 137 ] || fail "the restored run to kill at its first PREPARE was not killed there"
"$WEIR" run job.sql "${CK60[@]}" > /dev/null 2>> log || fail "the run after them failed"
check_final "a restored run killed while preparing its final checkpoint, then restored"
echo "  [${SECONDS}s] a restored run's final checkpoint killed mid-prepare: its transaction rolled back, tables equal the reference"
reset

# ---- 2. the server crashes mid-run ----
# A rate-limited generator (6 s of rows, its position in the checkpoints),
# so the job is still running when the server crashes; the reference is
# computed by awk from the same sequence.
q "CREATE TABLE gwin (k bigint, ws timestamp(3), c bigint, s bigint);
   CREATE TABLE gagg (k bigint PRIMARY KEY, c bigint, s bigint)"
cat > gen.sql <<EOF
CREATE TABLE gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 3, 3), WATERMARK FOR ts AS ts - INTERVAL '0.1' SECOND)
  WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '60000', 'rows-per-second' = '10000');
CREATE TABLE w (k BIGINT, ws TIMESTAMP(3), c BIGINT, s BIGINT)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'gwin', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once');
CREATE TABLE a (k BIGINT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$URL', 'table-name' = 'gagg', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO w SELECT id % 60, window_start, COUNT(*), SUM(id)
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY id % 60, window_start, window_end;
INSERT INTO a SELECT id % 60, COUNT(*), SUM(id) FROM gen GROUP BY id % 60;
EOF
awk 'BEGIN { for (i = 1; i <= 60000; i++) { k = i % 60; w = int(i * 3 / 1000) * 1000
    c[k "|" w]++; s[k "|" w] += i; ca[k]++; sa[k] += i }
    for (x in c) printf "w|%s|%d|%d\n", x, c[x], s[x]; for (k in ca) printf "a|%d|%d|%d\n", k, ca[k], sa[k] }' |
    LC_ALL=C sort > gen_ref.txt
gen_rows() {
    { q "SELECT 'w', k, (extract(epoch FROM ws) * 1000)::bigint, c, s FROM gwin"
      q "SELECT 'a', k, c, s FROM gagg"; } | LC_ALL=C sort
}
rm -rf ckpt
"$WEIR" run gen.sql "${CK[@]}" -D restart-strategy.type=fixed-delay \
    -D restart-strategy.fixed-delay.attempts=50 -D restart-strategy.fixed-delay.delay=200ms > /dev/null 2> log &
pid=$!
# The crash once the job has completed a checkpoint (it has written and
# prepared, maybe committed, by then), well before the generator's end.
for ((i = 0; i < 1000; i++)); do
    compgen -G "ckpt/chk-*/_metadata" > /dev/null && break
    sleep 0.01
done
pg_stop_immediate
sleep 0.3
pg_restart || fail "cannot restart PostgreSQL"
wait "$pid" || fail "the job did not recover from the server's crash"
grep -q "restarting in 200 ms" log || fail "the server's crash did not fail an attempt (the job ended first?)"
gen_rows | cmp -s - gen_ref.txt || { gen_rows | diff gen_ref.txt - | head -5; fail "tables differ after the server's crash"; }
[ "$(prepared)" = 0 ] || fail "prepared transactions left after the server's crash"
echo "  [${SECONDS}s] server crashed and restarted mid-run: $(grep -c 'restarting in' log) restart(s), window and upsert tables equal awk's, no prepared transaction left"
echo "test_pg_sink_crash: passed"
