#!/usr/bin/env bash
# tests/test_crash_sql_date.sh WEIR SOURCE_DIR - DATE and TIME values in keyed
# state through checkpoints: a SQL job (CSV -> TUMBLE window GROUP BY a DATE
# column with MIN/MAX of a TIME(3) column -> filesystem sink: DATE keys,
# TIME accumulators) is killed with SIGKILL at random moments and restarted from its checkpoints, on the
# heap backend and on RocksDB; its visible output must equal that of an
# uninterrupted run. Then a savepoint of the running job restored at another
# parallelism on the other backend gives the reference output too.
#
# WEIR_CRASH_SEED replays a kill schedule; WEIR_CRASH_DATE_KILLS (default 4)
# and WEIR_CRASH_ROWS change the size.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
crash_init crash-date "$1" 150000 40000
KILLS=${WEIR_CRASH_DATE_KILLS:-4}
echo "test_crash_sql_date: seed $SEED (WEIR_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

# Dates over 1969-2030 (some before the epoch: negative day numbers), times
# of day with milliseconds; event time rises slowly with a few late rows.
gen() {
    awk -v n="$1" 'BEGIN { srand(11); for (i = 0; i < n; i++) {
        ts = 1000000 + i + int(rand() * 300); if (i % 997 == 0) ts -= 30000;
        y = 1969 + int(rand() * 62); m = 1 + int(rand() * 12); d = 1 + int(rand() * 28);
        ms = int(rand() * 86400000);
        printf "%04d-%02d-%02d,%02d:%02d:%02d.%03d,%d\n", y, m, d,
            int(ms / 3600000), int(ms / 60000) % 60, int(ms / 1000) % 60, ms % 1000, ts } }'
}
gen "$ROWS" > in.csv
cat > job.sql <<'SQL'
CREATE TABLE src (
  d DATE,
  tm TIME(3),
  ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dst (
  d DATE, window_start TIMESTAMP(3), cnt BIGINT, first_tm TIME(3), last_tm TIME(3)
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
        'sink.commit-on-checkpoint' = 'true', 'sink.rolling-policy.file-size' = '16kb');
INSERT INTO dst
SELECT d, window_start, COUNT(*), MIN(tm), MAX(tm)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY d, window_start, window_end;
SQL
CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=100ms
    -D parallelism.default=2)
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null | sort; }

crash_timed "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
visible > ref.txt
rm -rf out
[ -s ref.txt ] || fail "the reference run wrote nothing"
grep -q '^19[0-9][0-9]-' ref.txt || fail "the reference run wrote no DATE before 2000"
echo "  reference: $(wc -l < ref.txt) lines in $ref_ms ms"

for BACKEND in hashmap rocksdb; do
    rm -rf out ckpt state sp log
    crash_kill_loop "$KILLS" "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state
    "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state \
        > /dev/null 2>> log || fail "$BACKEND: the last run failed"
    visible | cmp -s ref.txt - || { visible | diff ref.txt - | head -5; fail "$BACKEND: output differs (seed $SEED)"; }
    echo "  $BACKEND: $kills kills, output equals the reference"
done

# A savepoint of the running job, restored at parallelism 3 on RocksDB.
rm -rf out ckpt sp state
gen $(( ROWS * 4 )) > in.csv
"$WEIR" run job.sql -D parallelism.default=2 > /dev/null 2> log || fail "the second reference run failed"
visible > ref2.txt
rm -rf out
crash_savepoint "$WEIR" run job.sql "${CK[@]}"
"$WEIR" run job.sql "${CK[@]}" -D parallelism.default=3 -D state.backend.type=rocksdb \
    -D weir.state.dir=state --from "$sp" > /dev/null 2> log || fail "restore from $sp failed"
grep -q "restoring from savepoint" log || fail "--from did not say so"
visible | cmp -s - ref2.txt || { visible | diff ref2.txt - | head -5; fail "savepoint restore: output differs"; }
echo "  savepoint -> parallelism 3 on RocksDB: output equals the reference"
echo "test_crash_sql_date: passed"
