#!/usr/bin/env bash
# tests/test_restore_canonical_rows.sh WEIR SOURCE_DIR - a checkpoint written
# by a weir that kept join and Top-N rows in the canonical encoding (before
# "row format: compact-1"; fixtures in tests/data/canonical_rows, made by
# its make.sh with such a weir) restores: the rows of the regular, semi and
# interval joins, the Top-N and the deduplication are re-encoded, and the job ends with the results of
# an uninterrupted run. On the memory backend, RocksDB and RocksDB with
# incremental checkpoints (native files), at the parallelism the checkpoint
# was taken at and at 2 and 3. The restored job's own checkpoints are in the
# compact format: it is killed once it took one, and restored again from it.
# And a savepoint of that weir (the upgrade path), restored with --from.
# The parallelisms of the restores: 1 and 3 on the memory backend, 2 on
# RocksDB, 3 with incremental checkpoints (each backend and each
# parallelism once, a restore costs seconds); WEIR_CANON_PARALLELISMS="1
# 2 3" restores every backend at each.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-canonical-rows "$1"
FIX=$SRC/tests/data/canonical_rows
outs="out_join out_semi out_ival out_top out_dedup"

fixture_reference

for fixture in memory rocksdb rocksdb-incremental; do
    opts=()
    [ "$fixture" = memory ] || opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
    [ "$fixture" = rocksdb-incremental ] && opts+=(-D state.backend.incremental=true)
    case $fixture in memory) ps="1 3" ;; rocksdb) ps=2 ;; *) ps=3 ;; esac
    for p in ${WEIR_CANON_PARALLELISMS:-$ps}; do
        R=$T/$fixture-$p
        # The first restore: killed once the job took a checkpoint of its own.
        fixture_first_run "$fixture" "$R" "${opts[@]}" -D parallelism.default=$p
        for op in "Join\\[0\\]" "Join\\[1\\]" "IntervalJoin\\[0\\]" "Rank\\[0\\]" "Deduplicate\\[0\\]"; do
            grep -q "$op of ckpt/chk-$first keeps its rows in the canonical encoding" log ||
                fail "$fixture at p $p: the re-encoding of $op is not said"
        done
        grep -aq "row format: compact-1" "ckpt/chk-$last/_metadata" ||
            fail "$fixture at p $p: the restored job's checkpoint does not name the compact rows"
        fixture_second_run "$fixture at p $p" "${opts[@]}" -D parallelism.default=$p
        grep -q "canonical encoding" log && fail "$fixture at p $p: a compact checkpoint taken as canonical"
        cd "$T" || exit 1
        fixture_compare "$R" "$fixture at p $p"
    done
done
# The upgrade path: a savepoint of the earlier weir, restored with --from,
# on the memory backend at parallelism 1 and on RocksDB at 2.
for p in 1 2; do
    R=$T/savepoint-$p
    fixture_savepoint_run $p "$R"
    grep -q "Join\[0\] of $spath keeps its rows in the canonical encoding" log ||
        fail "savepoint at p $p: the join's re-encoding is not said"
    cd "$T" || exit 1
    fixture_compare "$R" "savepoint at p $p"
done
echo "test_restore_canonical_rows: ok"
