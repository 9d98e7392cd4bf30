#!/usr/bin/env bash
# tests/test_crash_sql_proctime.sh WEIR SOURCE_DIR - OVER aggregations
# ordered by a processing-time attribute (PROCTIME()) through kill -9 and
# recovery: a job of four of them (ROWS BETWEEN 3 PRECEDING with LAG, RANGE
# UNBOUNDED, a global ROWS frame, and RANGE BETWEEN INTERVAL '1' HOUR
# PRECEDING) writing exactly-once files, checkpointing every 100 ms, is
# killed at random moments and restarted on the same checkpoint folder.
#
# By processing time a partition's rows are in arrival order, which is file
# order here (one split), so the ROWS and UNBOUNDED results do not depend on
# the clock: the killed runs must show exactly the uninterrupted run's
# rows, and both must equal the Python model (tests/proctime_over_model.py).
# The RANGE frame groups the rows of one clock millisecond as peers - the
# system clock decides those groups, here as for a user - so its rows are
# checked against the model's rule for any grouping: every row once, each
# with the count and sum of its partition up to the end of its group. State
# under test: the frames' rows and accumulators, the RANGE rows waiting for
# the clock with their processing-time timers, on the heap backend and on
# RocksDB.
#
# WEIR_CRASH_SEED replays a kill schedule; WEIR_CRASH_PROCTIME_KILLS
# (default 3) and WEIR_CRASH_ROWS change the size.
set -u
SRC=$(cd "$2" && pwd)
. "$SRC/tests/support/crash.sh"
crash_init crash-proctime "$1" 12000 4000
KILLS=${WEIR_CRASH_PROCTIME_KILLS:-3}
MODEL="$SRC/tests/proctime_over_model.py"
echo "test_crash_sql_proctime: seed $SEED (WEIR_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

awk -v n="$ROWS" 'BEGIN { srand(13); for (i = 0; i < n; i++)
    printf "k%d,%d,%d\n", int(rand() * 40), int(rand() * 1000), i }' > in.csv
cat > job.sql <<'SQL'
CREATE TABLE src (k STRING, v BIGINT, seq BIGINT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE rows_out (k STRING, seq BIGINT, s BIGINT, c BIGINT, mx BIGINT, prev BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_rows', 'format' = 'csv');
CREATE TABLE unb_out (k STRING, seq BIGINT, s BIGINT, c BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_unb', 'format' = 'csv');
CREATE TABLE glob_out (k STRING, seq BIGINT, s BIGINT, mn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_glob', 'format' = 'csv');
CREATE TABLE range_out (k STRING, seq BIGINT, c BIGINT, s BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_range', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO rows_out
SELECT k, seq, SUM(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w, LAG(v) OVER w FROM src
WINDOW w AS (PARTITION BY k ORDER BY pt ROWS BETWEEN 3 PRECEDING AND CURRENT ROW);
INSERT INTO unb_out
SELECT k, seq, SUM(v) OVER (PARTITION BY k ORDER BY pt), COUNT(*) OVER (PARTITION BY k ORDER BY pt) FROM src;
INSERT INTO glob_out
SELECT k, seq, SUM(v) OVER w, MIN(v) OVER w FROM src WINDOW w AS (ORDER BY pt ROWS BETWEEN 5 PRECEDING AND CURRENT ROW);
INSERT INTO range_out
SELECT k, seq, COUNT(*) OVER w, SUM(v) OVER w FROM src
WINDOW w AS (PARTITION BY k ORDER BY pt RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW);
END;
SQL
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms -D parallelism.default=2)
# The committed rows of the four sinks, each line prefixed with its query.
visible() {
    local q
    for q in rows unb glob range; do
        find "out_$q" -maxdepth 1 -type f ! -name '.*' -exec sed "s/^/$q,/" {} + 2>/dev/null
    done | LC_ALL=C sort
}
hidden() { find out_* -maxdepth 1 -type f -name '.*' 2>/dev/null | wc -l; }
# The rows whose values the clock does not decide.
exact() { grep -v '^range,' "$1"; }

crash_timed "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
visible > ref.txt
rm -rf out_*
[ "$(wc -l < ref.txt)" -eq $(( ROWS * 4 )) ] || fail "the reference run wrote $(wc -l < ref.txt) rows, not $(( ROWS * 4 ))"
python3 "$MODEL" in.csv ref.txt || fail "the reference run differs from the model"
echo "  reference: $(wc -l < ref.txt) rows in $ref_ms ms, equal to the model"

# Each run is killed 1-50 ms after the first checkpoint it completes: every
# kill then leaves state to restore, and comes before the end.
CRASH_CKPT_DIR=ckpt
max_delay=100
for BACKEND in hashmap rocksdb; do
    rm -rf out_* ckpt state log
    crash_kill_loop "$KILLS" "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state
    "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state \
        > /dev/null 2>> log || fail "$BACKEND: the last run failed"
    grep -q "restoring from checkpoint" log || fail "$BACKEND: no run restored a checkpoint (seed $SEED)"
    visible > got.txt
    cmp -s <(exact ref.txt) <(exact got.txt) ||
        { diff <(exact ref.txt) <(exact got.txt) | head -5; fail "$BACKEND: output differs (seed $SEED)"; }
    python3 "$MODEL" in.csv got.txt > model.txt || { cat model.txt; fail "$BACKEND: the model disagrees (seed $SEED)"; }
    [ "$(hidden)" -eq 0 ] || fail "$BACKEND: hidden part files left behind"
    echo "  $BACKEND: $kills kills, $(grep -c "restoring from checkpoint" log) restores, output equals the reference and the model"
done
echo "test_crash_sql_proctime: passed"
