#!/usr/bin/env bash
# tests/test_crash_sql.sh WEIR SOURCE_DIR - exactly-once through `weir run`:
# a SQL job (CSV file -> TUMBLE window COUNT/SUM -> filesystem sink, and
# the same file -> OVER aggregation -> a second filesystem sink) checkpointing
# every 100 ms is killed with
# SIGKILL at random moments and restarted with the same checkpoint folder;
# its visible output must equal that of an uninterrupted run. Then the
# command-line side of recovery: a rerun of a finished job does nothing,
# --fresh starts over, `weir savepoint PID` takes a savepoint of a running
# job, and --from restores it at another parallelism on the other backend.
# The kill loop runs on the heap backend, on RocksDB, on RocksDB with
# incremental checkpoints (state.backend.incremental), and on the heap
# backend with unaligned checkpoints (execution.checkpointing.unaligned),
# and on the heap backend with the window aggregation in two phases
# (table.optimizer.agg-phase-strategy = TWO_PHASE).
#
# WEIR_CRASH_SEED replays a kill schedule; WEIR_CRASH_SQL_KILLS (default 10)
# and WEIR_CRASH_ROWS change the size. The C crash test (test_crash.c) kills
# at chosen I/O points as well; this one covers the CLI path.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
crash_init crash-sql "$1" 1000000 150000
KILLS=${WEIR_CRASH_SQL_KILLS:-10}
echo "test_crash_sql: seed $SEED (WEIR_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

awk -v n="$ROWS" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    ts = 1000000 + i + int(rand() * 300); if (i % 997 == 0) ts -= 30000;
    printf "k%d,%d,%d\n", int(rand() * 60), int(rand() * 1000), ts } }' > in.csv
cat > job.sql <<'EOF'
CREATE TABLE src (
  k STRING,
  v BIGINT,
  ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dst (
  k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
        'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '16kb');
CREATE TABLE dst2 (k STRING, v BIGINT, ts_ms BIGINT, s BIGINT, c BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out2', 'format' = 'csv');
INSERT INTO dst
SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
INSERT INTO dst2
SELECT k, v, ts_ms, SUM(v) OVER w, COUNT(*) OVER w FROM src WHERE v < 20
WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW);
EOF
CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=100ms
    -D parallelism.default=2)
# Both sinks: the window results, and the OVER aggregation's rows (its sink
# leaves 'sink.commit-on-checkpoint' out: exactly-once is the default).
visible() {
    { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null
      find out2 -maxdepth 1 -type f ! -name '.*' -exec sed 's/^/over,/' {} + 2>/dev/null; } | sort
}
hidden() { find out out2 -maxdepth 1 -type f -name '.part-*' 2>/dev/null | wc -l; }

# The reference: one uninterrupted run, no checkpoints.
crash_timed "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
visible > ref.txt
rm -rf out out2
grep -q '^over,' ref.txt || fail "the reference run wrote no OVER rows"
[ -s ref.txt ] || fail "the reference run wrote nothing"
echo "  reference: $(wc -l < ref.txt) lines in $ref_ms ms"

# Five passes: the heap backend with two-phase aggregation, the heap
# backend, RocksDB with full checkpoints, RocksDB with incremental ones
# (native checkpoints, shared SST files), and the heap backend with
# unaligned checkpoints (in-flight data stored and replayed); fewer kills
# in the first and the last two to keep the script's time in bounds. The
# two-phase pass comes first: the steps after the loop restore the last
# pass's checkpoints without the option, and a checkpoint of the other
# strategy does not fit.
for PASS in hashmap-two-phase hashmap rocksdb rocksdb-incremental hashmap-unaligned; do
    BACKEND=${PASS%-incremental}
    BACKEND=${BACKEND%-unaligned}
    BACKEND=${BACKEND%-two-phase}
    EXTRA=(-D state.backend.incremental=false)
    n_kills=$KILLS
    if [ "$PASS" = rocksdb-incremental ]; then
        EXTRA=(-D state.backend.incremental=true -D state.checkpoints.num-retained=2)
        n_kills=$(( (KILLS + 1) / 2 ))
    elif [ "$PASS" = hashmap-unaligned ]; then
        EXTRA=(-D execution.checkpointing.unaligned=true)
        n_kills=$(( (KILLS + 3) / 4 ))
    elif [ "$PASS" = hashmap-two-phase ]; then
        # the window aggregation in two phases: the local one holds nothing at a barrier
        EXTRA=(-D table.optimizer.agg-phase-strategy=TWO_PHASE)
        n_kills=$(( (KILLS + 3) / 4 ))
    fi
    rm -rf out out2 ckpt state sp log
    crash_kill_loop "$n_kills" "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" \
        -D weir.state.dir=state "${EXTRA[@]}"
    "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state \
        "${EXTRA[@]}" > /dev/null 2>> log || fail "$PASS: the last run failed"
    visible > got.txt
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "$PASS: output differs (seed $SEED)"; }
    [ "$(hidden)" -eq 0 ] || fail "$PASS: hidden part files left behind"
    if [ "$PASS" = rocksdb-incremental ]; then
        # The checkpoints were incremental, and retention left no file that
        # no retained checkpoint needs (their names are in _metadata).
        [ -d ckpt/shared ] || fail "$PASS: no shared files: the checkpoints were not incremental"
        for f in ckpt/shared/*; do
            [ -e "$f" ] || continue
            grep -qla "$(basename "$f")" ckpt/chk-*/_metadata || fail "$PASS: $f is not referenced by any retained checkpoint"
        done
    fi
    echo "  $PASS: $kills kills, output equals the reference"
done

# A finished job resumes at its end: nothing new, nothing twice.
"$WEIR" run job.sql "${CK[@]}" > /dev/null 2> log || fail "rerun failed"
grep -q "nothing is left to do" log || fail "rerun did not say it resumed at the end"
visible | cmp -s - ref.txt || fail "rerun changed the output"

# --fresh starts over.
rm -rf out out2
"$WEIR" run job.sql "${CK[@]}" --fresh > /dev/null 2> log || fail "--fresh failed"
grep -q "starting fresh" log || fail "--fresh did not say so"
visible | cmp -s - ref.txt || fail "--fresh output differs"

# A savepoint of a running job (SIGUSR1 through `weir savepoint`), then a
# restore at parallelism 3 on RocksDB: the savepoint's output plus the rest.
rm -rf out out2 ckpt sp
big=$(( ROWS * 4 ))
awk -v n="$big" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    ts = 1000000 + i + int(rand() * 300); if (i % 997 == 0) ts -= 30000;
    printf "k%d,%d,%d\n", int(rand() * 60), int(rand() * 1000), ts } }' > in.csv
"$WEIR" run job.sql -D parallelism.default=2 > /dev/null 2> log || fail "the second reference run failed"
visible > ref2.txt
rm -rf out out2
crash_savepoint "$WEIR" run job.sql "${CK[@]}"
"$WEIR" run job.sql "${CK[@]}" -D parallelism.default=3 -D state.backend.type=rocksdb \
    -D weir.state.dir=state --from "$sp" > /dev/null 2> log || fail "restore from $sp failed"
grep -q "restoring from savepoint" log || fail "--from did not say so"
visible | cmp -s - ref2.txt || fail "savepoint restore: output differs"
echo "  savepoint -> parallelism 3 on RocksDB: output equals the reference"
# restart-strategy: a bad record fails the job at the same row every time;
# each restart resumes from the last checkpoint, then the attempts run out.
rm -rf out out2 ckpt sp state
awk -v n="$ROWS" 'NR == int(n * 3 / 4) { print "k1,not-a-number,1" } { print }' in.csv > bad.csv
sed 's/in.csv/bad.csv/' job.sql > bad.sql
"$WEIR" run bad.sql "${CK[@]}" -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=2 \
    -D restart-strategy.fixed-delay.delay=10ms > /dev/null 2> log
st=$?
[ $st -eq 1 ] || fail "a job failing on bad input exited $st, not 1"
grep -q "restarting in 10 ms (restart 1 of 2)" log || fail "no first restart"
grep -q "restarting in 10 ms (restart 2 of 2)" log && grep -q "restart [12] of 2) from ckpt/chk-" log || fail "the restarts did not resume a checkpoint"
[ "$(grep -c 'job failed' log)" -eq 3 ] || fail "expected three failed attempts"
echo "  restart-strategy: 2 restarts from the last checkpoint, then the job fails"
# A stop during the restart delay ends the run: no further attempt starts
# (the delay is long; the process must be gone well before it ends).
rm -rf ckpt
"$WEIR" run bad.sql "${CK[@]}" -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=5 \
    -D restart-strategy.fixed-delay.delay=60s > /dev/null 2> log &
pid=$!
for _ in $(seq 600); do grep -q "restarting in 60000 ms" log && break; sleep 0.05; done
grep -q "restarting in 60000 ms" log || fail "no restart announced"
kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fail "SIGTERM during the restart delay did not end the run"; fi
wait "$pid"; st=$?
[ $st -eq 143 ] || fail "SIGTERM during the restart delay: exit $st, not 143"
grep -q "SIGTERM: stopping; not restarting" log || fail "the stop during the delay was not reported"
[ "$(grep -c 'job failed' log)" -eq 1 ] || fail "an attempt ran after the stop"
echo "  restart-strategy: SIGTERM during the delay stops the run, no new attempt"
echo "test_crash_sql: passed"
