#!/usr/bin/env bash
# tests/test_restore_two_phase_serialised.sh WEIR SOURCE_DIR - a checkpoint
# of a two-phase window aggregation written by a weir whose local phase sent
# every partial accumulator serialised (fixture tests/data/two_phase_serialised,
# made by its make.sh with such a weir) restores into this weir, which sends
# COUNT/SUM/AVG as columns: the global phase's state is the same. Restored
# at the checkpoint's parallelism (1) and at 2, the job ends with the rows
# of an uninterrupted run, and its own checkpoints name the new form
# ("partial rows: columns-1"). Without the fingerprint's fixed input line
# the restore is refused (the input's columns changed): this test fails on
# a weir that describes the global phase's input as it travels. And an
# unaligned checkpoint of that weir holding partial rows in flight (fixture
# unaligned/) is refused by name: those rows are in the serialised form.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-two-phase-serialised "$1"
FIX=$SRC/tests/data/two_phase_serialised

visible() { find "$1/out_win" -maxdepth 1 -type f ! -name '.*' -exec cat {} + | LC_ALL=C sort; }

mkdir ref && cp "$FIX/job.sql" ref/ && (cd ref && "$WEIR" run job.sql > /dev/null 2> log) ||
    fail "the reference run failed"
visible ref > ref.txt
[ "$(wc -l < ref.txt)" -gt 100 ] || fail "the reference wrote $(wc -l < ref.txt) rows"

for p in 1 2; do
    R=$T/aligned-$p
    mkdir "$R" && cp -r "$FIX/aligned"/. "$R"/ && cp "$FIX/job.sql" "$R"/ || fail "cannot copy the fixture"
    chmod -R u+w "$R"
    first=$(ls -d "$R"/ckpt/chk-* | sed 's/.*chk-//' | sort -n | tail -1)
    grep -aq "input: (INT, BYTES, BYTES, BYTES, BYTES, BYTES)" "$R/ckpt/chk-$first/_metadata" ||
        fail "the fixture's checkpoint does not describe serialised partial rows"
    cd "$R" || exit 1
    "$WEIR" run job.sql -D parallelism.default=$p > /dev/null 2> log || fail "p $p: the restore failed"
    grep -q "restoring from checkpoint chk-$first " log || fail "p $p: not restored from the fixture"
    last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
    [ "$last" -gt "$first" ] || fail "p $p: the restored job took no checkpoint"
    grep -aq "partial rows: columns-1" "ckpt/chk-$last/_metadata" ||
        fail "p $p: the restored job's checkpoint does not name the partial rows' form"
    cd "$T" || exit 1
    visible "$R" > got.txt
    cmp -s got.txt ref.txt ||
        { diff got.txt ref.txt | head; fail "p $p: results differ from an uninterrupted run"; }
done

# An unaligned checkpoint of that weir holding partial rows in flight (in
# the serialised form) is refused, naming the aggregation, before anything
# runs.
R=$T/unaligned
mkdir "$R" && cp -r "$FIX/unaligned"/. "$R"/ && cp "$FIX/job_unaligned.sql" "$R"/ && chmod -R u+w "$R" ||
    fail "cannot copy the unaligned fixture"
cd "$R" || exit 1
"$WEIR" run job_unaligned.sql > /dev/null 2> log
st=$?
[ $st -eq 3 ] || fail "the unaligned checkpoint: exit $st, expected 3 (refused)"
grep -q "holds in-flight data (an unaligned checkpoint) of an earlier weir, whose two-phase aggregation GroupAggregate\[0\] received its partial accumulators serialised" log ||
    fail "the refusal of the unaligned checkpoint does not say why"
cd "$T" || exit 1
echo "test_restore_two_phase_serialised: ok"
