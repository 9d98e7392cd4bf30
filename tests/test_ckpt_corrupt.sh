#!/usr/bin/env bash
# tests/test_ckpt_corrupt.sh WEIR SOURCE_DIR - what `weir run` does when
# retained checkpoints are corrupt. Output was committed under them, so:
#   * the newest corrupt, an older one good: the run falls back to the
#     older one and says so (and which one it resumes from);
#   * none usable: the run fails, naming each checkpoint and why, and leaves
#     the visible output alone (a fresh start would write it again);
#   * --fresh is the user's explicit choice and does start over.
# (A corrupt shared file of an incremental checkpoint makes it unusable the
# same way: tests/test_checkpoint_incremental.c.)
# Deterministic: the jobs run to completion, no kill, no timing.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-ckpt-corrupt-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

awk 'BEGIN { for (i = 0; i < 3000; i++) printf "k%d,%d,%d\n", i % 7, i, 1000000 + i * 100 }' > in.csv
cat > job.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ckpt';
SET 'state.checkpoints.num-retained' = '5';
SET 'execution.checkpointing.interval' = '1 min';
CREATE TABLE src (
  k STRING, v BIGINT, ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
SQL
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null | sort; }
corrupt() { # flips a byte in the middle of every state file of checkpoint $1
    local f
    for f in ckpt/"$1"/t*.snap; do
        printf '\xff' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") / 2 )) conv=notrunc status=none
    done
}

# Each run ends with a final checkpoint; the second resumes at the end of
# the first (nothing to do) and checkpoints again: two retained checkpoints.
"$WEIR" run job.sql > /dev/null 2> log || fail "first run failed"
visible > ref.txt
[ -s ref.txt ] || fail "the first run wrote nothing"
"$WEIR" run job.sql > /dev/null 2> log || fail "second run failed"
mapfile -t chks < <(ls ckpt | grep '^chk-' | sort -t- -k2 -n)
[ "${#chks[@]}" -ge 2 ] || fail "expected two retained checkpoints, got: ${chks[*]}"
newest=${chks[-1]}
older=${chks[-2]}

# The newest corrupt: fall back to the one before it, and say so.
corrupt "$newest"
"$WEIR" run job.sql > /dev/null 2> log || fail "a run with an older good checkpoint failed"
grep -q "checkpoint $newest is unusable: .*falling back to the one before it" log ||
    fail "the fallback past $newest was not reported"
grep -q "restoring from checkpoint $older " log || fail "the run did not say it resumes from $older"
visible | cmp -s - ref.txt || fail "the fallback run changed the output"

# Every retained checkpoint corrupt: refuse, list each one, touch nothing.
for c in $(ls ckpt | grep '^chk-'); do corrupt "$c"; done
mapfile -t chks < <(ls ckpt | grep '^chk-')
"$WEIR" run job.sql > /dev/null 2> log
st=$?
[ $st -eq 4 ] || fail "a run with no usable checkpoint exited $st, not 4"
grep -q "no usable checkpoint" log || fail "no message that no checkpoint is usable"
grep -q -- "--fresh" log || fail "the message does not offer --fresh"
for c in "${chks[@]}"; do
    grep -q "checkpoint $c is unusable: .*checksum or size mismatch" log || fail "$c and why it is unusable are not named"
done
grep -q "starting fresh" log && fail "it started fresh on its own"
visible | cmp -s - ref.txt || fail "the refused run changed the output"

# --fresh is the user's choice: it starts over (the output is written again).
"$WEIR" run job.sql --fresh > /dev/null 2> log || fail "--fresh failed"
grep -q "starting fresh" log || fail "--fresh did not say so"
[ "$(visible | wc -l)" -eq $(( 2 * $(wc -l < ref.txt) )) ] || fail "--fresh did not write the output again"

echo "test_ckpt_corrupt: ok"
