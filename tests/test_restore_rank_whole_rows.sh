#!/usr/bin/env bash
# tests/test_restore_rank_whole_rows.sh WEIR SOURCE_DIR - a checkpoint written
# by a weir that kept every Top-N and deduplication row whole (before "rank
# rows: 2"; fixtures in tests/data/rank_whole_rows, made by its make.sh with
# such a weir) restores: each kept row is re-encoded without the columns
# its partition key and sort key hold (a Top-N with the rank number and
# NULLs in its ORDER BY column, a deduplication by a STRING and a BIGINT, a
# retractable Top-N, a window Top-N), and the job ends with the results of
# an uninterrupted run. On the memory backend and RocksDB, at the
# parallelism the checkpoint was taken at and at 2. The restored job's own
# checkpoints name the layout: it is killed once it took one, and restored
# again from it. And a savepoint of that weir (the upgrade path), restored
# with --from.
# WEIR_RANKROWS_PARALLELISMS: the parallelisms of the restores ("1 2").
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-rank-whole-rows "$1"
FIX=$SRC/tests/data/rank_whole_rows
outs="out_top out_dedup out_retract out_window"
ranks="Rank\\[0\\] Deduplicate\\[0\\] Rank\\[1\\] WindowRank\\[0\\]"

fixture_reference

said() { # $1: what restored, $2: the log's name of the checkpoint
    for op in $ranks; do
        grep -q "$op of $2 keeps its Top-N rows whole" log ||
            fail "$1: re-encoding the rows of $op is not said"
    done
}

for fixture in memory rocksdb; do
    opts=()
    [ "$fixture" = memory ] || opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
    for p in ${WEIR_RANKROWS_PARALLELISMS:-1 2}; do
        R=$T/$fixture-$p
        # The first restore: killed once the job took a checkpoint of its own.
        fixture_first_run "$fixture" "$R" "${opts[@]}" -D parallelism.default=$p
        said "$fixture at p $p" "ckpt/chk-$first"
        [ "$(grep -ac "rank rows: 2" "ckpt/chk-$last/_metadata")" -ge 1 ] ||
            fail "$fixture at p $p: the restored job's checkpoint does not name the layout"
        fixture_second_run "$fixture at p $p" "${opts[@]}" -D parallelism.default=$p
        grep -q "rows whole" log && fail "$fixture at p $p: a checkpoint of the new layout taken for whole rows"
        cd "$T" || exit 1
        fixture_compare "$R" "$fixture at p $p"
    done
done
# The upgrade path: a savepoint of the earlier weir, restored with --from,
# on the memory backend at parallelism 1 and on RocksDB at 2.
for p in 1 2; do
    R=$T/savepoint-$p
    fixture_savepoint_run $p "$R"
    said "savepoint at p $p" "$spath"
    cd "$T" || exit 1
    fixture_compare "$R" "savepoint at p $p"
done
echo "test_restore_rank_whole_rows: ok"
