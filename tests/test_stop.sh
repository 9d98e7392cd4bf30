#!/usr/bin/env bash
# tests/test_stop.sh WEIR SOURCE_DIR - stopping `weir run` with real signals.
#
# The job reads CSV files from a folder it keeps watching
# (source.monitor-interval: it never ends by itself) into a 1 s TUMBLE
# COUNT/SUM per key and a filesystem sink. Its data are fixed, so what a stop
# must leave is known exactly: the windows the watermark closed (end <= the
# largest timestamp read), and none of the rest.
#   1. Without checkpoints, SIGTERM: exit 143, the fired windows committed,
#      no partial window, no hidden file.
#   2. --drain-on-stop, and `weir stop PID --drain`: every window fires; the
#      output equals a bounded run over the same files.
#   3. With checkpoints, SIGTERM: exit 143, a final checkpoint committed and
#      said so, no hidden file; more data arrive, the rerun resumes and SIGINT
#      stops it (exit 130): the output equals the uninterrupted run's, less
#      the window still open. The new file goes to the other source subtask:
#      the first file's holds its watermark until the idle timeout passes
#      (the live job sets one), restored or not.
#   4. A stop during a firing of millions of windows (1 ms slide, 1 day HOP)
#      ends the process promptly (it used to run on for minutes).
# Every wait polls observable state (an output line count, a file) with a
# bound; nothing sleeps for a window.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(cd "$2" && pwd)/tests/support/crash.sh" # fail, stop_run
T=$(mktemp -d /tmp/weir-stop-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1

# rows(FROM, TO): keys a, b, c each at every ms in [FROM, TO)
rows() { awk -v a="$1" -v b="$2" 'BEGIN { for (t = a; t < b; t++) {
    printf "a,%d,%d\nb,%d,%d\nc,%d,%d\n", t % 7, t, t % 5, t, t % 3, t } }'; }
mkdir in
rows 0 9500 > in/a.csv
job() { # $1: monitor interval option ("" for bounded), $2: output folder
    cat <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv'$1);
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'csv', 'sink.rolling-policy.file-size' = '1b');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
EOF
}
job ", 'source.monitor-interval' = '50ms', 'scan.watermark.idle-timeout' = '300ms'" out > live.sql
job "" ref > ref.sql
visible() { find "${1:-out}" -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null | sort; }
hidden() { find "${1:-out}" -maxdepth 1 -name '.*' -type f 2> /dev/null | wc -l; }
# wait_lines N [DIR]: until DIR shows at least N visible lines (bounded).
wait_lines() {
    for ((i = 0; i < 600; i++)); do
        [ "$(visible "${2:-out}" | wc -l)" -ge "$1" ] && return 0
        sleep 0.05
    done
    return 1
}

# The reference: a bounded run over the same files fires every window.
"$WEIR" run ref.sql > /dev/null 2> log || fail "the reference run failed"
visible ref > ref1.txt
[ "$(wc -l < ref1.txt)" -eq 30 ] || fail "the reference has $(wc -l < ref1.txt) windows, not 30"
# What a stop may show: windows with end <= 9499 (the watermark), 9 per key.
grep -v ',1970-01-01 00:00:10.000,' ref1.txt > fired1.txt
[ "$(wc -l < fired1.txt)" -eq 27 ] || fail "expected 27 closed windows"

# 1. No checkpoints, no drain: only the fired windows.
"$WEIR" run live.sql > /dev/null 2> log &
pid=$!
pids+=($pid)
wait_lines 27 || fail "the fired windows never became visible"
stop_run TERM
[ $st -eq 143 ] || fail "SIGTERM without checkpoints exited $st, not 143"
visible | cmp -s - fired1.txt || { diff <(visible) fired1.txt | head; fail "a stop without drain must show exactly the fired windows"; }
[ "$(hidden)" -eq 0 ] || fail "a stop left hidden files: $(ls -A out)"
grep -q "windows that had not fired were dropped" log || fail "the stop line is missing"
echo "  SIGTERM, no checkpoints: exit 143, 27 fired windows, no partial one, no hidden file"

# 2. A drain fires every window: the output is the bounded run's.
rm -rf out
"$WEIR" run live.sql --drain-on-stop > /dev/null 2> log &
pid=$!
pids+=($pid)
wait_lines 27 || fail "the fired windows never became visible (drain)"
stop_run INT
[ $st -eq 130 ] || fail "SIGINT with --drain-on-stop exited $st, not 130"
visible | cmp -s - ref1.txt || fail "--drain-on-stop: output differs from the bounded run"
[ "$(hidden)" -eq 0 ] || fail "a drain left hidden files"
grep -q "drained: every window fired" log || fail "the drain line is missing"
rm -rf out
"$WEIR" run live.sql > /dev/null 2> log &
pid=$!
pids+=($pid)
wait_lines 27 || fail "the fired windows never became visible (weir stop)"
"$WEIR" stop "$pid" --drain || fail "weir stop --drain failed"
stop_run 0 # only waits: signal 0 checks that it exists
[ $st -eq 143 ] || fail "weir stop --drain: exit $st, not 143"
visible | cmp -s - ref1.txt || fail "weir stop --drain: output differs from the bounded run"
echo "  drain (--drain-on-stop + SIGINT: exit 130; weir stop --drain: 143): every window, as a bounded run"

# 3. Checkpoints: a final checkpoint, then a rerun continues exactly.
rm -rf out
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms -D parallelism.default=2)
"$WEIR" run live.sql "${CK[@]}" > /dev/null 2> log &
pid=$!
pids+=($pid)
wait_lines 27 || fail "no committed output with checkpoints"
stop_run TERM
[ $st -eq 143 ] || fail "SIGTERM with checkpoints exited $st, not 143"
grep -q "final checkpoint chk-[0-9]* committed" log || fail "the stop did not say what it committed"
[ "$(hidden)" -eq 0 ] || fail "a stop with checkpoints left hidden files: $(ls -A out)"
visible | cmp -s - fired1.txt || fail "with checkpoints the stop must show exactly the fired windows"
rows 9500 20000 > in/b.csv # more data while the job is down
rm -rf ref
"$WEIR" run ref.sql > /dev/null 2> log || fail "the second reference run failed"
visible ref > ref2.txt
grep -v ',1970-01-01 00:00:20.000,' ref2.txt > fired2.txt
[ "$(wc -l < fired2.txt)" -eq 57 ] || fail "expected 57 closed windows"
"$WEIR" run live.sql "${CK[@]}" > /dev/null 2> log &
pid=$!
pids+=($pid)
wait_lines 57 || fail "the resumed run did not commit the new windows"
stop_run INT
[ $st -eq 130 ] || fail "SIGINT with checkpoints exited $st, not 130"
grep -q "restoring from checkpoint" log || fail "the rerun did not resume"
visible | cmp -s - fired2.txt || { diff <(visible) fired2.txt | head; fail "stop + resume differs from an uninterrupted run"; }
[ "$(hidden)" -eq 0 ] || fail "the second stop left hidden files"
echo "  checkpoints: SIGTERM (143) commits a final checkpoint, resume + SIGINT (130) equals an uninterrupted run"

# 4. A stop during a firing of millions of windows: two records a day apart
# make a 1 ms slide, 1 day HOP fire 86.4 M windows at once.
mkdir hop
printf 'a,1,1000\na,1,86401000\n' > hop/a.csv
cat > hop.sql <<'EOF'
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'hop', 'format' = 'csv');
CREATE TABLE o (k STRING, window_end TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT k, window_end, COUNT(*)
FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '0.001' SECOND, INTERVAL '1' DAY))
GROUP BY k, window_start, window_end;
EOF
for mode in plain checkpoints; do
    opts=()
    [ $mode = checkpoints ] && opts=(-D state.checkpoints.dir=ckpt-hop -D execution.checkpointing.interval=100ms)
    rm -f first rc
    { "$WEIR" run hop.sql "${opts[@]}" 2> log; echo $? > rc; } | { head -c 64 > first; cat > /dev/null; } &
    for ((i = 0; i < 600; i++)); do [ -s first ] && break; sleep 0.05; done
    [ -s first ] || fail "the HOP job never started firing"
    pid=$(pgrep -n -f "$WEIR run hop.sql")
    [ -n "$pid" ] || fail "no weir process"
    start=$(date +%s%N)
    kill -TERM "$pid"
    # A bound against a hang (the firing alone lasts minutes), not a timing.
    for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
    kill -0 "$pid" 2> /dev/null && { kill -9 "$pid"; fail "$mode: still firing 10 s after SIGTERM"; }
    wait
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$(cat rc)" = 143 ] || fail "$mode: a stop during a firing exited $(cat rc), not 143"
    grep -q "stopped at once (SIGTERM)" log || fail "$mode: the stop line is missing"
    echo "  a stop during a firing of 86.4 M windows ($mode): the process ended $ms ms after SIGTERM"
done
echo "test_stop: passed"
