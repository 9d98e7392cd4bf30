#!/usr/bin/env bash
# tests/test_restore_rank_task_inflight.sh WEIR SOURCE_DIR - an unaligned
# checkpoint of an earlier weir, which ran a join's Top-1 in a task of its
# own (task 3, behind a keyed exchange), holding join rows in flight to
# that task (fixture tests/data/rank_task_inflight, made by its make.sh
# with such a weir): this weir chains that exchange (the Rank runs in the
# join's task) and has no task 3 to replay them into, so the restore is
# refused, naming the task, instead of dropping those rows. The same job's
# own unaligned checkpoint, with rows in flight to the join, restores: the
# rerun after a kill -9 folds to the table of an uninterrupted run.
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
SRC=$(cd "$2" && pwd)
restore_init restore-rank-task-inflight "$1"
command -v jq > /dev/null || fail "jq is needed (scripts/install-deps.sh)"
FIX=$SRC/tests/data/rank_task_inflight

# inflight CHK [TASK]: whether checkpoint CHK holds in-flight data (of TASK)
inflight() {
    "$WEIR" inspect "$1" |
        awk -v t="${2:-}" '/^  task / { in_t = t == "" || $2 == t } in_t && /in-flight data/ { f = 1 } END { exit !f }'
}

"$WEIR" explain "$FIX/job.sql" | grep -q "chained to Rank" ||
    fail "this weir does not chain the Top-1 to the join: the fixture tests nothing"

# The earlier weir's checkpoint: refused before anything runs.
R=$T/old
mkdir "$R" && cp -r "$FIX/ckpt" "$FIX/out_top" "$FIX/job.sql" "$R"/ && chmod -R u+w "$R" ||
    fail "cannot copy the fixture"
cd "$R" || exit 1
chk=$(ls -d ckpt/chk-*)
inflight "$chk" 3 || fail "the fixture's $chk holds no in-flight data of task 3"
"$WEIR" run job.sql > /dev/null 2> log
st=$?
[ $st -ne 0 ] || fail "the earlier weir's unaligned checkpoint restored (its rows in flight to task 3 are lost)"
grep -q "restoring from checkpoint ${chk#ckpt/} " log || fail "not restored from the fixture"
grep -q "the checkpoint's in-flight data of its task 3 (with Rank) has no such task in this job: an unaligned checkpoint restores only into the same job graph" log ||
    fail "the refusal does not name the task and its operator"
[ -z "$(find out_top -maxdepth 1 -name 'part-*' -newer log)" ] || fail "the refused job wrote output"

# This weir's own unaligned checkpoint of the same job, with rows in
# flight: restored exactly.
mkdir "$T/ref" && cp "$FIX/job.sql" "$T/ref"/ && (cd "$T/ref" && "$WEIR" run job.sql > /dev/null 2> log) ||
    { cd "$T/ref"; fail "the reference run failed"; }
fold "$T/ref/out_top" > "$T/ref.txt"
[ "$(wc -l < "$T/ref.txt")" -eq 2 ] || fail "the reference folds to $(wc -l < "$T/ref.txt") rows, not 2"
done_ok=
for ((try = 1; try <= 5; try++)); do
    R=$T/own-$try
    mkdir "$R" && cp "$FIX/job.sql" "$R"/ && cd "$R" || exit 1
    "$WEIR" run job.sql -D state.checkpoints.num-retained=1000 > /dev/null 2> log &
    pid=$!
    got=
    for ((i = 0; i < 3000; i++)); do
        for m in ckpt/chk-*/_metadata; do
            [ -f "$m" ] && inflight "${m%/_metadata}" && { got=${m%/_metadata}; break; }
        done
        [ -n "$got" ] && break
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.01
    done
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    pid=
    # the rerun restores the newest complete checkpoint: it must hold rows in flight
    last=$(newest_checkpoint ckpt)
    [ "$last" -gt 0 ] && inflight "ckpt/chk-$last" || continue
    "$WEIR" run job.sql > /dev/null 2> log2 || { cat log2 >> log; fail "the restore of its own chk-$last failed"; }
    grep -q "restoring from checkpoint chk-$last " log2 || fail "the rerun did not restore chk-$last"
    fold out_top > got.txt
    cmp -s got.txt "$T/ref.txt" || { diff got.txt "$T/ref.txt" | head; fail "the restored run differs from an uninterrupted one"; }
    done_ok=1
    break
done
[ -n "$done_ok" ] || fail "5 runs took no checkpoint with rows in flight before they were killed"
cd "$T" || exit 1
echo "test_restore_rank_task_inflight: ok"
