#!/usr/bin/env bash
# tests/test_cluster_ended.sh WEIR SOURCE_DIR - a job run by several
# processes that ran to its end is started again (docs/cluster.md, "The
# end of a bounded job"), against librdkafka's mock cluster over TCP
# (weir-kafka-mock). A restart reads nothing again and completes every
# pending commit of the checkpoint that ended the job, at any parallelism
# and however often it is started.
#
#   1. datagen -> exactly-once file sink on 2 processes at p 1, to its end;
#      started again at p 1, at p 2, at p 2 once more: each start exits 0
#      and the output stays every row once. (A split that moved to the
#      other process used to start over: rows twice; the second start's
#      checkpoint used to delete the one the control topic names, and the
#      next start failed.)
#   2. The windowed job of the crash tests at p 1, to its end, then at p 2
#      (key groups move): both exit 0, the output equals the Python model.
#   3. The checkpoint that ended the job completed, but process 1 died
#      before its sink committed (its part file turned back into the
#      pending file the checkpoint names); started again with the sink's
#      parallelism 1 -> 3: the pending file of old subtask 1, now another
#      process's subtask, is committed: every row once.
# WEIR_CLUSTER_ENDED_ROWS sizes it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_ended: SKIPPED (no weir-kafka-mock)"; exit 0
fi
ROWS=${WEIR_CLUSTER_ENDED_ROWS:-4000}
RATE=8000
echo "test_cluster_ended: $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-ended
fail() {
    echo "FAIL: $*"
    for f in "$T"/*/log.*; do [ -f "$f" ] && { echo "== $f"; tail -6 "$f"; }; done
    exit 1
}

cluster_mock ea-control:1 eb-control:1 eb-tumbling_window-2-repartition:4 ec-control:1

# start NAME I P: process I of 2 of job NAME at parallelism P
start() {
    cluster_start "$1" job.sql "$2" 2 -D pipeline.name="$1" -D parallelism.default="$3" \
        -D weir.cluster.repartition-partitions=4 -D state.checkpoints.dir=ck \
        -D execution.checkpointing.interval="${INTERVAL:-150ms}"
}
# run NAME P WHAT: both processes at parallelism P, to their end
run() {
    local i
    start "$1" 0 "$2"; start "$1" 1 "$2"
    for i in 0 1; do
        wait "${pids[$i]}" || fail "$3: process $i exited $?"
        pids[$i]=0
    done
}
# once WHAT: every row of out/ once
once() {
    local n u
    n=$(cat out/part-* | wc -l)
    u=$(cat out/part-* | sort -u | wc -l)
    [ "$n" = "$ROWS" ] && [ "$u" = "$ROWS" ] ||
        fail "$1: $n rows, $u distinct, want $ROWS once each"
}
datagen_job() {
    cat <<SQL
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS',
  'rows-per-second' = '$RATE', $1
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv'$2);
INSERT INTO o SELECT id FROM g;
SQL
}

# 1. stateless, started again at p 1, 2, 2
mkdir a && cd a || exit 1
datagen_job "" "" > job.sql
run ea 1 "the first run (p 1)"
once "the first run (p 1)"
for p in 1 2 2; do
    run ea "$p" "a start at p $p after the end"
    once "a start at p $p after the end"
    grep -q "nothing is left to do" log.ea.0 || fail "process 0 did not say the job had ended"
done
echo "  ended at p 1, started again at p 1, 2 and 2: each exits 0, every row once"
cd .. || exit 1

# 2. keyed window job, p 1 -> 2 after the end
mkdir b && cd b || exit 1
cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt
run eb 1 "window job, the first run (p 1)"
for p in 1 2; do
    [ "$p" = 2 ] && run eb 2 "window job, a start at p 2 after the end"
    cat out/part-* 2> /dev/null | sort > got.txt
    if ! diff want.txt got.txt > diff.txt; then
        echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
        fail "window job at p $p differs from the model"
    fi
done
echo "  window job ended at p 1, started again at p 2: exits 0, equal to the model"
cd .. || exit 1

# 3. a pending commit of the ending checkpoint, sink parallelism 1 -> 3
# (the first checkpoint comes after the input ended: the final one is the
# job's only one, and every file is pending for it)
mkdir c && cd c || exit 1
INTERVAL=2s
datagen_job "'scan.parallelism' = '1'," ", 'sink.parallelism' = '1'" > job.sql
run ec 1 "pending commit, the first run"
[ "$(ls ck/process-1)" = chk-1 ] || fail "want the final checkpoint to be the only one: $(ls ck/process-1)"
once "pending commit, the first run"
# process 1 died before its sink committed: its file back to the pending
# name the final checkpoint lists (every file is pending for the job's
# only checkpoint)
k=0
for f in out/part-*-1-*.csv; do
    [ -e "$f" ] || continue
    mv "$f" "out/.$(basename "$f").inprogress"
    k=$((k + 1))
done
[ "$k" -gt 0 ] || fail "no file of sink subtask 1 to make pending again"
datagen_job "'scan.parallelism' = '1'," ", 'sink.parallelism' = '3'" > job.sql
run ec 1 "pending commit, a start with the sink at 3"
once "pending commit, a start with the sink at 3"
[ "$(ls -a out | grep -c inprogress)" = 0 ] || fail "hidden files left in out/"
echo "  a pending commit of subtask 1, restored with the sink at 3: committed, every row once"
echo "test_cluster_ended: OK"
