#!/usr/bin/env bash
# tests/test_restore_join_map_rows.sh WEIR SOURCE_DIR - a checkpoint written
# by a weir that kept every row of a regular join in a map entry (before row
# logs, "row log: 1 ..."; fixtures in tests/data/join_map_rows, made by its
# make.sh with such a weir) restores: the rows of the joins' insert-only
# sides (an inner join's both, with repeated rows; a LEFT join's right; a
# join's left beside an updating right; a join with a window aggregation,
# whose bounded left rows keep their times) move into their row logs, and the
# job ends with the results of an uninterrupted run. On the memory backend
# and RocksDB, at the parallelism the checkpoint was taken at and at 2. The
# restored job's own checkpoints name the row logs: it is killed once it
# took one, and restored again from it. And a savepoint of that weir (the
# upgrade path), restored with --from.
# WEIR_MAPROWS_PARALLELISMS: the parallelisms of the restores ("1 2").
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-join-map-rows "$1"
FIX=$SRC/tests/data/join_map_rows
outs="out_inner out_left out_upd out_bounded"
joins="Join\\[0\\] Join\\[1\\] Join\\[2\\] Join\\[3\\]"

fixture_reference

for fixture in memory rocksdb; do
    opts=()
    [ "$fixture" = memory ] || opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
    for p in ${WEIR_MAPROWS_PARALLELISMS:-1 2}; do
        R=$T/$fixture-$p
        # The first restore: killed once the job took a checkpoint of its own.
        fixture_first_run "$fixture" "$R" "${opts[@]}" -D parallelism.default=$p
        for op in $joins; do
            grep -q "$op of ckpt/chk-$first keeps every row in a map entry" log ||
                fail "$fixture at p $p: moving the rows of $op into its row logs is not said"
        done
        for log in "2 left-key right-key" "2 right-key" "2 left-key" "2 left-key right-key"; do
            grep -aq "row log: $log" "ckpt/chk-$last/_metadata" ||
                fail "$fixture at p $p: the restored job's checkpoint does not name the row log ($log)"
        done
        fixture_second_run "$fixture at p $p" "${opts[@]}" -D parallelism.default=$p
        grep -q "map entry" log && fail "$fixture at p $p: a checkpoint of row logs taken for map entries"
        cd "$T" || exit 1
        fixture_compare "$R" "$fixture at p $p"
    done
done
# The upgrade path: a savepoint of the earlier weir, restored with --from,
# on the memory backend at parallelism 1 and on RocksDB at 2.
for p in 1 2; do
    R=$T/savepoint-$p
    fixture_savepoint_run $p "$R"
    for op in $joins; do
        grep -q "$op of $spath keeps every row in a map entry" log ||
            fail "savepoint at p $p: moving the rows of $op into its row logs is not said"
    done
    cd "$T" || exit 1
    fixture_compare "$R" "savepoint at p $p"
done
echo "test_restore_join_map_rows: ok"
