#!/usr/bin/env bash
# tests/test_restore_join_row_log_1.sh WEIR SOURCE_DIR - a checkpoint written
# by a weir whose join row logs are of the first element format ("row log:
# 1 ...": every element the whole row, after its time as an i64 on a bounded
# side; fixtures in tests/data/join_row_log_1, made at parallelism 2 by its
# make.sh with such a weir) restores: the logs are re-encoded into format 2
# (key columns left out, a bounded side's time read from its row), with
# NULL keys under IS NOT DISTINCT FROM among them, beside a LEFT interval
# join's map entries, and the job ends with the results of an
# uninterrupted run. On the memory backend and RocksDB, at parallelism 1, 2
# and 3. The restored job's own checkpoints name format 2: it is killed
# once it took one, and restored again from it. And a savepoint of that
# weir (the upgrade path), restored with --from at 1 and 3.
# WEIR_ROWLOG1_PARALLELISMS: the parallelisms of the restores ("1 2 3").
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-join-row-log-1 "$1"
FIX=$SRC/tests/data/join_row_log_1
outs="out_two out_nsafe out_left out_bounded out_interval"
joins="Join\\[0\\] Join\\[1\\] Join\\[2\\] Join\\[3\\]"

fixture_reference

for fixture in memory rocksdb; do
    opts=()
    [ "$fixture" = memory ] || opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
    for p in ${WEIR_ROWLOG1_PARALLELISMS:-1 2 3}; do
        R=$T/$fixture-$p
        fixture_first_run "$fixture" "$R" "${opts[@]}" -D parallelism.default=$p
        for op in $joins; do
            grep -q "$op of ckpt/chk-$first keeps its row logs in the first element format" log ||
                fail "$fixture at p $p: re-encoding the row logs of $op is not said"
        done
        for log in "2 left-key right-key" "2 right-key"; do
            grep -aq "row log: $log" "ckpt/chk-$last/_metadata" ||
                fail "$fixture at p $p: the restored job's checkpoint does not name the row log ($log)"
        done
        fixture_second_run "$fixture at p $p" "${opts[@]}" -D parallelism.default=$p
        grep -q "first element format" log && fail "$fixture at p $p: a checkpoint of format 2 taken for format 1"
        cd "$T" || exit 1
        fixture_compare "$R" "$fixture at p $p"
    done
done
for p in 1 3; do
    R=$T/savepoint-$p
    fixture_savepoint_run $p "$R"
    for op in $joins; do
        grep -q "$op of $spath keeps its row logs in the first element format" log ||
            fail "savepoint at p $p: re-encoding the row logs of $op is not said"
    done
    cd "$T" || exit 1
    fixture_compare "$R" "savepoint at p $p"
done
echo "test_restore_join_row_log_1: ok"
