#!/usr/bin/env bash
# tests/test_checkpoint_empty_key_groups.sh WEIR SOURCE_DIR - a key group
# that holds no keyed state and no timers costs nothing in a checkpoint:
# the final checkpoint of a job with five keys (a GROUP BY and a TUMBLE
# window) is as large at pipeline.max-parallelism 32768 as at 128 (it was
# 2.5 MB: every key group listed, the window's watermark in each), and
# inspect counts the five key groups with state in the range the subtask
# owns. It restores at parallelism 2, on the memory backend and on RocksDB:
# the counts go on from the checkpoint's, and the window's watermark (the
# end of the input) reaches both subtasks - the one a scale-up added has
# no operator state of its own - so the new rows are late for the window.
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=$(cd "$2" && pwd)/tests/data/window_anchors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }
mkdir in
# the job and input of the window_anchors fixture: five keys, a GROUP BY and a TUMBLE
cp "$data/job.sql" .
"$data/input.sh" in/a.csv
# The state files' bytes of the final checkpoint at max parallelism $1.
size_at() {
  rm -rf "ck$1"
  "$weir" run job.sql -D state.checkpoints.dir="ck$1" -D pipeline.max-parallelism="$1" \
    -D rest.enabled=false > out 2> log || fail "the run at $1 failed"
  [ -f "ck$1/chk-1/_metadata" ] || fail "no final checkpoint at $1"
  cat "ck$1"/chk-1/*.snap | wc -c
}
small=$(size_at 128)
large=$(size_at 32768)
echo "final checkpoint: $small bytes at max parallelism 128, $large at 32768"
# n_kg and the source positions do not grow with the key groups; a few
# bytes of slack for varints.
[ "$large" -le $((small + 16)) ] || fail "empty key groups cost $((large - small)) bytes"
"$weir" inspect ck32768/chk-1 > inspect.out || fail "inspect failed"
grep -q "'GroupAggregate': operator state 0 bytes, key groups \[0, 32767\] (5 with state)" inspect.out ||
  fail "inspect does not show 5 of key groups [0, 32767]: $(grep 'key groups' inspect.out)"

printf 'k%d,1000,2024-01-01 00:00:30.000\n' 0 1 2 3 4 > in/b.csv
for backend in memory rocksdb; do
  opts=(-D parallelism.default=2 -D pipeline.max-parallelism=32768 -D rest.enabled=false)
  [ "$backend" = rocksdb ] && opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
  rm -rf ck state
  cp -r ck32768 ck
  "$weir" run job.sql -D state.checkpoints.dir=ck "${opts[@]}" > out 2> log || fail "$backend: the restore failed"
  grep -q "restoring from checkpoint chk-1" log || fail "$backend: not restored"
  for k in 0 1 2 3 4; do
    # key k had rows k, k + 5, ..., k + 195: 40 of them
    grep -q "+U\[k$k, 41, $((40 * k + 3900 + 1000))\]" out ||
      fail "$backend: k$k does not go on from 40 rows: $(grep "k$k," out)"
  done
  grep -q "^w" out && fail "$backend: rows behind the restored watermark fired a window: $(grep '^w' out)"
done
echo "test_checkpoint_empty_key_groups: ok"
