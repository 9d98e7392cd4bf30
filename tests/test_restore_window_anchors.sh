#!/usr/bin/env bash
# tests/test_restore_window_anchors.sh WEIR SOURCE_DIR - a checkpoint of an
# earlier weir, whose window operator kept its watermark in keyed state
# (an anchor key in every key group it owned: tests/data/window_anchors,
# the final checkpoint at parallelism 2), restores at parallelism 1, 2
# and 3 on the memory backend and on RocksDB: the counts go on from the
# checkpoint's, new rows behind the restored watermark fire no window, and
# the anchors are deleted in every key group and stay deleted in the next
# checkpoint (its window operator lists no key group: its windows had all
# fired), so they cost nothing and an old watermark cannot come back.
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=$(cd "$2" && pwd)/tests/data/window_anchors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }
cp "$data/job.sql" .
mkdir in
# the fixture's input, then five rows behind its end
"$data/input.sh" in/a.csv
printf 'k%d,1000,2024-01-01 00:00:12.000\n' 0 1 2 3 4 > in/b.csv
for backend in memory rocksdb; do
  for p in 1 2 3; do
    rm -rf ck state
    cp -r "$data/$backend/ck" ck
    "$weir" inspect ck/chk-1 | grep -q "'tumbling window': operator state 9 bytes, key groups \[0, 63\] (64 with state)" ||
      fail "$backend: the fixture has no anchor in every key group"
    "$weir" run job.sql -D state.checkpoints.dir=ck -D parallelism.default=$p -D state.backend.type=$backend \
      -D weir.state.dir=state -D rest.enabled=false > out 2> log || fail "$backend p $p: the restore failed"
    grep -q "restoring from checkpoint chk-1" log || fail "$backend p $p: not restored"
    for k in 0 1 2 3 4; do
      grep -q "+U\[k$k, 41, $((40 * k + 3900 + 1000))\]" out ||
        fail "$backend p $p: k$k does not go on from 40 rows: $(grep "k$k," out)"
    done
    grep -q "^w" out && fail "$backend p $p: rows behind the restored watermark fired a window: $(grep '^w' out)"
    "$weir" inspect ck/chk-2 > inspect.out || fail "$backend p $p: no next checkpoint"
    grep "'tumbling window'" inspect.out | grep -q "key groups" &&
      fail "$backend p $p: the anchors are still in the next checkpoint: $(grep "'tumbling window'" inspect.out)"
  done
done
echo "test_restore_window_anchors: ok"
