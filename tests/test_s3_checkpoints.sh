#!/usr/bin/env bash
# tests/test_s3_checkpoints.sh WEIR SOURCE_DIR - checkpoints and savepoints
# on object storage (s3://), against a real S3-compatible server (s3rver)
# the test starts on its own port:
#  1. kill -9 at random moments while checkpointing to s3:// (heap backend,
#     then RocksDB with incremental checkpoints), restart with the same
#     checkpoint path: the output equals an uninterrupted run's; with
#     incremental checkpoints every shared object left is referenced by a
#     retained checkpoint's _metadata;
#  2. a savepoint into s3:// of a running job, restored with --from at
#     parallelism 3 on RocksDB: output equals the reference;
#  3. the server dies while a checkpoint uploads: that checkpoint fails, the
#     job goes on, and once the server is back later checkpoints complete;
#     then the job is killed while the server is down (a half-uploaded
#     checkpoint is left) and restarted: it restores a complete checkpoint
#     and the output equals the reference.
#
# WEIR_S3_SEED replays a kill schedule; WEIR_S3_KILLS (default 10) and
# WEIR_S3_ROWS change the size. Each weir run has WEIR_S3_RUN_LIMIT seconds
# (default 240; one takes some 30 s, under ASan at load 20-60 up to 40 s):
# one that has not ended by then (or, killed mid-run, completed no
# checkpoint) is reported with its step, the stacks of its threads and the
# server's state, and fails the test. s3rver itself may crash under load
# (tests/support/s3_server.sh, s3_check): it is started again, with a note,
# and a run that failed meanwhile runs again - an outage the job rides out
# (without it, the job's final checkpoint waits for the storage forever).
# Skipped (exit 0, "SKIP") when s3rver is not installed
# (scripts/install-deps.sh) or weir has no object storage.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
SEED=${WEIR_S3_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_S3_KILLS:-10}
ROWS=${WEIR_S3_ROWS:-600000}
PARTS=${WEIR_S3_PARTS:-1 2 3} # which of the three parts below run
if ldd "$WEIR" 2>/dev/null | grep -q libasan; then ROWS=${WEIR_S3_ROWS:-200000}; fi
LIMIT=${WEIR_S3_RUN_LIMIT:-240}
RANDOM=$SEED
. "$SRC/tests/support/s3_server.sh"
. "$SRC/tests/support/watchdog.sh"
if ! s3_available "$SRC"; then
    echo "SKIP: s3rver is not installed (scripts/install-deps.sh installs it into tests/node)"
    exit 0
fi
echo "test_s3_checkpoints: seed $SEED (WEIR_S3_SEED=$SEED replays it), $ROWS rows, $KILLS kills"

T=$(mktemp -d /tmp/weir-s3-ckpt-XXXXXX)
trap 's3_stop; [ -n "${WEIR_S3_KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }
s3_start "$T/s3" wb || fail "cannot start s3rver"
# (what a report of a stuck run adds: the seed, the server, the newest
# complete checkpoints; fail() shows the end of the log)
s3_state() {
    echo "== seed $SEED; s3rver (pid $S3_PID) $(curl -s -m 5 -o /dev/null -w 'answers: HTTP %{http_code}' "$S3_ENDPOINT/" || echo 'does not answer in 5 s')"
    echo "== newest complete checkpoints in the bucket:"
    find "$S3_DATA" -name '_metadata._S3rver_object' -printf '%TT %P\n' 2> /dev/null | sort | tail -4
}
WATCH_EXTRA=s3_state
WATCH_TICK=s3_check
# bounded WHAT COMMAND...: a weir run of LIMIT seconds at most (s3_bounded)
bounded() { s3_bounded "$LIMIT" "$@"; }

# A rate-limited generator (its rows are a pure function of the row
# number, so any run, killed or not, sees the same input): each killed run
# gets only so far, and 10 kills land before the job ends.
job() { # $1: rows, $2: rows per second (0: as fast as it goes)
    cat > job.sql <<SQL
CREATE TABLE src (
  g BIGINT,
  ts AS TO_TIMESTAMP_LTZ(1000000 + g, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND
) WITH ('connector' = 'datagen', 'fields.g.kind' = 'sequence', 'fields.g.start' = '0',
        'fields.g.end' = '$(( $1 - 1 ))'$([ "$2" -gt 0 ] && echo ", 'rows-per-second' = '$2'"));
CREATE TABLE dst (
  k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
        'sink.rolling-policy.file-size' = '16kb');
INSERT INTO dst
SELECT CONCAT('k', CAST(MOD(g * 7919, 500) AS STRING)), window_start, window_end, COUNT(*), SUM(MOD(g * 31, 1000))
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY CONCAT('k', CAST(MOD(g * 7919, 500) AS STRING)), window_start, window_end;
SQL
}
job "$ROWS" 0
S3=(-D s3.endpoint="$S3_ENDPOINT" -D s3.access-key=S3RVER -D s3.secret-key=S3RVER -D s3.path.style.access=true)
# The highest complete checkpoint id under s3://wb/$1 (0: none).
last_chk() { s3_keys "$1" | sed -n 's,.*/chk-\([0-9]*\)/_metadata$,\1,p' | sort -n | tail -1 | grep . || echo 0; }
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null | sort; }

# Built with object storage at all?
: > log
bounded "the probe run" "$WEIR" run job.sql "${S3[@]}" -D state.checkpoints.dir=s3://wb/probe
[ $? -ne 124 ] || fail "the probe run did not end"
if grep -q "object storage is not built" log; then echo "SKIP: weir built without libcurl"; exit 0; fi
rm -rf out

start=$(date +%s%N)
: > log
bounded "the reference run" "$WEIR" run job.sql -D parallelism.default=2 || fail "the reference run failed"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
visible > ref.txt
rm -rf out
[ -s ref.txt ] || fail "the reference run wrote nothing"
echo "  reference: $(wc -l < ref.txt) lines in $ref_ms ms"
# Kills land anywhere in a run that checkpoints to the server.
rm -rf out
start=$(date +%s%N)
: > log
bounded "the timed checkpointed run" "$WEIR" run job.sql "${S3[@]}" -D state.checkpoints.dir=s3://wb/timed \
    -D execution.checkpointing.interval=100ms -D parallelism.default=2 || fail "the timed checkpointed run failed"
run_ms=$(( ($(date +%s%N) - start) / 1000000 ))
visible | cmp -s - ref.txt || fail "a checkpointed run's output differs"
rm -rf out
echo "  with checkpoints on s3://: $run_ms ms"

# 1. kill -9 loops with checkpoints on s3://
total_kills=0
job "$ROWS" $(( ROWS / 30 )) # some 30 s in all: every run is killed before the end
for PASS in hashmap rocksdb-incremental; do
    case " $PARTS " in *" 1 "*) ;; *) total_kills=$KILLS; break;; esac
    CK=(-D state.checkpoints.dir=s3://wb/$PASS/ckpt -D execution.checkpointing.interval=100ms
        -D parallelism.default=2 -D weir.state.dir=state)
    n_kills=$KILLS
    if [ "$PASS" = rocksdb-incremental ]; then
        CK+=(-D state.backend.type=rocksdb -D state.backend.incremental=true -D state.checkpoints.num-retained=2)
        n_kills=$(( (KILLS + 1) / 2 ))
    fi
    rm -rf out state log
    kills=0 max_shared=0 finished=0
    # Short runs (about 1/KILLS of a whole one each), so the job is still
    # unfinished when the kills are done.
    # Each run is killed a random 0-250 ms after it completed a checkpoint
    # of its own (a poll on the bucket), so every run moves on; one that
    # completes none in LIMIT seconds is stuck.
    for ((i = 1; kills < n_kills && i <= 3 * n_kills; i++)); do
        delay=$(( RANDOM % 250 ))
        before=$(last_chk "$PASS/ckpt") crashes=$S3_CRASHES
        "$WEIR" run job.sql "${S3[@]}" "${CK[@]}" > /dev/null 2>> log &
        pid=$!
        deadline=$((SECONDS + LIMIT))
        while [ "$(last_chk "$PASS/ckpt")" -le "$before" ] && kill -0 "$pid" 2> /dev/null; do
            s3_check
            if [ "$SECONDS" -ge "$deadline" ]; then
                watch_report "$pid" "$PASS: attempt $i ($kills kills so far) completed no checkpoint after chk-$before in $LIMIT s"
                kill -9 "$pid"
                fail "$PASS: attempt $i completed no checkpoint in $LIMIT s"
            fi
            sleep 0.02
        done
        sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
        kill -9 "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        st=$?
        if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -eq 0 ]; then finished=1; break;
        elif s3_check && [ "$S3_CRASHES" -gt "$crashes" ]; then
            echo "  note: $PASS: attempt $i failed (status $st) while s3rver was down"
        else fail "$PASS: attempt $i exited $st"; fi
        n_shared=$(s3_keys "$PASS/ckpt/shared" | wc -l)
        [ "$n_shared" -le "$max_shared" ] || max_shared=$n_shared
    done
    total_kills=$(( total_kills + kills ))
    bounded "$PASS: the last run (after $kills kills)" "$WEIR" run job.sql "${S3[@]}" "${CK[@]}" ||
        fail "$PASS: the last run failed (status $?)"
    visible > got.txt
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "$PASS: output differs (seed $SEED)"; }
    grep -q "restoring from checkpoint chk-" log || fail "$PASS: no run restored a checkpoint from s3://"
    s3_keys "$PASS/ckpt" | grep -q '/_metadata$' || fail "$PASS: no checkpoint in the bucket"
    if [ "$PASS" = rocksdb-incremental ]; then
        [ "$max_shared" -gt 0 ] || fail "$PASS: no shared objects: the checkpoints were not incremental"
        s3_keys "$PASS/ckpt/shared" > shared.txt
        while read -r key; do
            grep -qla "$(basename "$key")" "$S3_DATA"/wb/$PASS/ckpt/chk-*/_metadata._S3rver_object ||
                fail "$PASS: $key is referenced by no retained checkpoint"
        done < shared.txt
        echo "  $PASS: up to $max_shared shared objects; the $(wc -l < shared.txt) left are each referenced by a retained checkpoint"
    fi
    echo "  $PASS: $kills kills, output equals the reference"
done
[ "$total_kills" -ge "$KILLS" ] || fail "only $total_kills kills landed (want $KILLS; seed $SEED)"

# 2. a savepoint into s3:// of a running job, restored at parallelism 3
# (from a file: a generator's splits would change hands, and rows with
# them could turn late)
if [[ " $PARTS " == *" 2 "* ]]; then
awk -v n=$(( ROWS * 4 )) 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    ts = 1000000 + i + int(rand() * 300); if (i % 997 == 0) ts -= 30000;
    printf "%d,%d\n", i, ts } }' > in.csv
sed -e "s/'connector' = 'datagen'.*/'connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');/" \
    -e "/'fields.g.end'/d" -e "s/ts AS TO_TIMESTAMP_LTZ(1000000 + g, 3)/ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3)/" job.sql > file.sql
rm -rf out state
: > log
bounded "the savepoint part's reference run" "$WEIR" run file.sql -D parallelism.default=2 ||
    fail "the second reference run failed"
visible > ref2.txt
rm -rf out state
CK=(-D state.checkpoints.dir=s3://wb/sp-run/ckpt -D state.savepoints.dir=s3://wb/savepoints
    -D execution.checkpointing.interval=100ms -D parallelism.default=2)
"$WEIR" run file.sql "${S3[@]}" "${CK[@]}" > /dev/null 2> log &
pid=$!
# Running for sure once its first checkpoint completed (a savepoint asked
# of a job still starting is refused).
for ((i = 0; i < 600; i++)); do s3_keys sp-run/ckpt | grep -q '/_metadata$' && break; sleep 0.05; done
"$WEIR" savepoint "$pid" &
watch_pid $! "$LIMIT" "weir savepoint $pid" || { kill -9 "$pid"; fail "weir savepoint failed"; }
for ((i = 0; i < 600; i++)); do grep -q "savepoint [0-9]* written to" log && break; sleep 0.05; done
sp=$(sed -n 's/.*savepoint [0-9]* written to \([^ ;]*\).*/\1/p' log | head -1)
kill -9 "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
case "$sp" in s3://wb/savepoints/savepoint-*) ;; *) cat log; fail "no savepoint was written to s3:// (got '$sp')";; esac
s3_keys "${sp#s3://wb/}" | grep -q '/_metadata$' || fail "$sp has no _metadata in the bucket"
: > log
bounded "the restore from $sp at parallelism 3" "$WEIR" run file.sql "${S3[@]}" "${CK[@]}" -D parallelism.default=3 \
    -D state.backend.type=rocksdb -D weir.state.dir=state --from "$sp" || fail "restore from $sp failed"
grep -q "restoring from savepoint $sp" log || fail "--from did not say so"
visible > got2.txt; cmp -s got2.txt ref2.txt || { diff ref2.txt got2.txt | head -5; echo "$(wc -l < ref2.txt) vs $(wc -l < got2.txt)"; fail "savepoint restore: output differs"; }
echo "  savepoint in s3:// -> parallelism 3 on RocksDB: output equals the reference"
fi

# 3. the server dies mid-checkpoint
[[ " $PARTS " == *" 3 "* ]] || { echo "test_s3_checkpoints: passed"; exit 0; }
rm -rf out state
job $(( ROWS * 2 )) $(( ROWS / 4 ))
: > log
bounded "the outage part's reference run" "$WEIR" run job.sql -D parallelism.default=2 ||
    fail "the third reference run failed"
visible > ref2.txt
rm -rf out state
CK=(-D state.checkpoints.dir=s3://wb/fault/ckpt -D execution.checkpointing.interval=100ms
    -D parallelism.default=2 -D state.backend.type=rocksdb -D state.backend.incremental=true
    -D weir.state.dir=state -D s3.max-error-retries=1 -D s3.upload.min.part.size=4096)
"$WEIR" run job.sql "${S3[@]}" "${CK[@]}" > /dev/null 2> log &
pid=$!
for ((i = 0; i < 400; i++)); do s3_keys fault/ckpt | grep -q '/_metadata$' && break; sleep 0.02; done
s3_kill
for ((i = 0; i < 600; i++)); do grep -q "checkpoint [0-9]* failed" log && break; sleep 0.02; done
grep -q "checkpoint [0-9]* failed" log || { kill -9 $pid; fail "no checkpoint failed while the server was down"; }
failed=$(sed -n 's/.*checkpoint \([0-9]*\) failed.*/\1/p' log | head -1)
kill -0 "$pid" 2> /dev/null || fail "the job did not go on after checkpoint $failed failed"
s3_restart || fail "cannot restart s3rver"
watch_pid "$pid" "$LIMIT" "the job after the server came back" || fail "the job failed after the server came back"
visible | cmp -s - ref2.txt || fail "output differs after a failed checkpoint"
last=$(s3_keys fault/ckpt | sed -n 's,.*/chk-\([0-9]*\)/_metadata$,\1,p' | sort -n | tail -1)
[ -n "$last" ] && [ "$last" -gt "$failed" ] || fail "no checkpoint after the failed $failed completed (last: ${last:-none})"
echo "  server killed: checkpoint $failed failed, the job went on, checkpoint $last completed later"

# ... and the job killed while the server is down: the half-uploaded
# checkpoint is never restored.
rm -rf out state
CK[1]=state.checkpoints.dir=s3://wb/fault2/ckpt
"$WEIR" run job.sql "${S3[@]}" "${CK[@]}" > /dev/null 2> log &
pid=$!
# (a second checkpoint's _metadata key, not the first's: s3rver lists an
# object while it still writes its file, so a kill then can leave the only
# checkpoint's _metadata torn - no real S3 shows a half-written object -
# and the run after the outage rightly finds no usable checkpoint. Once
# chk-2's key shows, chk-1's file was written whole, and it is removed only
# after chk-2's upload has completed.)
for ((i = 0; i < 600; i++)); do [ "$(last_chk fault2/ckpt)" -ge 2 ] && break; sleep 0.02; done
s3_kill
for ((i = 0; i < 600; i++)); do grep -q "checkpoint [0-9]* failed" log && break; sleep 0.02; done
kill -9 "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
s3_restart || fail "cannot restart s3rver"
half=$(s3_keys fault2/ckpt | sed -n 's,^fault2/ckpt/\(chk-[0-9]*\)/.*,\1,p' | sort -u |
       while read -r c; do s3_keys "fault2/ckpt/$c" | grep -q '/_metadata$' || echo "$c"; done | head -1)
: > log
bounded "the run after the outage" "$WEIR" run job.sql "${S3[@]}" "${CK[@]}" || fail "the run after the outage failed"
grep -q "restoring from checkpoint chk-" log || fail "the run after the outage restored nothing"
[ -z "$half" ] || ! grep -q "restoring from checkpoint $half " log ||
    fail "the half-uploaded $half was restored"
visible | cmp -s - ref2.txt || fail "output differs after the outage"
echo "  job killed during the outage${half:+ (left $half half-uploaded)}: restored a complete checkpoint, output equals the reference"
echo "test_s3_checkpoints: passed"
