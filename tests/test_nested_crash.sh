#!/usr/bin/env bash
# tests/test_nested_crash.sh WEIR SOURCE_DIR - ARRAY, MAP and ROW values in
# checkpointed state: a job grouping by a ROW and an ARRAY key in event-time
# windows (the keys and their values live in keyed state, the rows in
# flight in unaligned checkpoints) writes nested JSON exactly-once; it is
# killed with SIGKILL at a random moment after a checkpoint completed
# (attempts repeat until a kill lands before the job ends, at most 4),
# restarted, and must end with the output of an uninterrupted run. Passes:
# RocksDB, and the heap backend with unaligned checkpoints. WEIR_NESTED_CRASH_SEED replays the kill schedule;
# WEIR_NESTED_CRASH_ROWS sizes the input (default 300000, 80000 under ASan).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SEED=${WEIR_NESTED_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROWS=${WEIR_NESTED_CRASH_ROWS:-300000}
if ldd "$WEIR" 2>/dev/null | grep -q libasan; then ROWS=${WEIR_NESTED_CRASH_ROWS:-80000}; fi
RANDOM=$SEED
echo "test_nested_crash: seed $SEED (WEIR_NESTED_CRASH_SEED=$SEED replays it), $ROWS rows"
T=$(mktemp -d /tmp/weir-nested-crash-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

awk -v n="$ROWS" 'BEGIN { srand(11); for (i = 0; i < n; i++) {
    ts = 1000000 + i * 5 + int(rand() * 300); k = int(rand() * 40)
    tier = (k % 7 == 0) ? "null" : k % 3
    tags = (k % 5 == 0) ? "null" : sprintf("[\"t%d\",%s]", k % 4, (k % 2) ? "null" : "\"x\"")
    printf "{\"u\":{\"name\":\"n%d\",\"tier\":%s},\"tags\":%s,\"m\":{\"v\":%d},\"ts\":%d}\n", k, tier, tags, int(rand() * 100), ts } }' > in.json
cat > job.sql <<'EOF2'
CREATE TABLE src (
  u ROW<name STRING, tier INT>,
  tags ARRAY<STRING>,
  m MAP<STRING, INT>,
  ts BIGINT,
  rt AS TO_TIMESTAMP_LTZ(ts, 3),
  WATERMARK FOR rt AS rt - INTERVAL '0.3' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE dst (
  u ROW<name STRING, tier INT>, tags ARRAY<STRING>, window_end TIMESTAMP(3), n BIGINT, total BIGINT,
  seen ARRAY<BIGINT>
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json', 'sink.rolling-policy.file-size' = '16kb');
INSERT INTO dst
SELECT u, tags, window_end, COUNT(*), SUM(m['v']), ARRAY[MIN(ts), MAX(ts)]
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(rt), INTERVAL '5' SECOND))
GROUP BY u, tags, window_start, window_end;
EOF2
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=30ms -D parallelism.default=2)
# LAST: the number of the newest completed checkpoint (0: none); a pause:
# both without starting a process (a loaded machine starts them slowly).
last_chk() {
    local f n max=0
    for f in ckpt/chk-*/_metadata; do
        [ -e "$f" ] || continue
        n=${f#ckpt/chk-}
        n=${n%%/*}
        [ "$n" -gt "$max" ] && max=$n
    done
    LAST=$max
}
mkfifo pause.fifo
exec 9<> pause.fifo
pause() { read -r -t "$1" -u 9 _; }
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null | LC_ALL=C sort; }

"$WEIR" run job.sql -D parallelism.default=2 > /dev/null 2> log || fail "the reference run failed"
visible > ref.txt
[ -s ref.txt ] || fail "the reference run wrote nothing"
grep -q '"u":{"name":"n1","tier":1},"tags":\["t1",null\]' ref.txt || fail "the reference lacks a nested key"
rm -rf out
echo "  reference: $(wc -l < ref.txt) lines"

for PASS in rocksdb hashmap-unaligned; do
    BACKEND=${PASS%-unaligned}
    EXTRA=(-D execution.checkpointing.unaligned=false)
    [ "$PASS" = hashmap-unaligned ] && EXTRA=(-D execution.checkpointing.unaligned=true)
    rm -rf out ckpt state log
    kills=0
    for ((i = 1; i <= 4 && kills == 0; i++)); do
        "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state \
            "${EXTRA[@]}" > /dev/null 2>> log &
        pid=$!
        # wait for a checkpoint newer than the last run left, then kill at a random moment after it
        last_chk
        before=$LAST
        for ((w = 0; w < 600; w++)); do
            last_chk
            [ "$LAST" -gt "$before" ] && break
            kill -0 "$pid" 2>/dev/null || break
            pause 0.01
        done
        pause "0.0$(( RANDOM % 10 ))"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        st=$?
        [ $st -eq 137 ] && kills=$((kills + 1))
        pid=
    done
    "$WEIR" run job.sql "${CK[@]}" -D state.backend.type="$BACKEND" -D weir.state.dir=state \
        "${EXTRA[@]}" > /dev/null 2>> log || fail "$PASS: the last run failed"
    [ $kills -gt 0 ] || fail "$PASS: no kill landed while the job ran (make WEIR_NESTED_CRASH_ROWS larger)"
    grep -q "restor" log || fail "$PASS: no run restored from a checkpoint"
    visible > got.txt
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "$PASS: output differs (seed $SEED)"; }
    echo "  $PASS: $kills kills, output equals the reference"
done
echo "test_nested_crash: ok"
