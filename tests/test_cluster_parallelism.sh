#!/usr/bin/env bash
# tests/test_cluster_parallelism.sh WEIR SOURCE_DIR - a job run by several
# processes restores its checkpoint at another parallelism in each process
# with the number of processes unchanged (docs/cluster.md, "Rescaling"),
# against librdkafka's mock cluster over TCP (weir-kafka-mock).
#
# Source splits (datagen-<k>-of-<M>: split k runs at subtask k mod N*p),
# key groups and operator state move between the processes when p changes,
# so each process must read every process's part of the checkpoint, as a
# rescale over another number of processes does; it used to read only its
# own, and a split that moved to the other process started over (rows
# twice in the exactly-once sink).
#
#   1. A stateless job (datagen -> exactly-once file sink) on 2 processes:
#      p 1, both killed after a few checkpoints, then p 2, killed again,
#      then p 1 to the end: every row exactly once.
#      The same with only the source's parallelism changed.
#      A folder of 2 files at scan.parallelism 2 (both splits in process
#      0) unioned with a datagen, restored at 1 (one split moves to
#      process 1, whose part held none of the folder's splits): both
#      processes see the change, every row once.
#   2. The windowed job of the crash tests (a keyed exchange, a repartition
#      topic): p 1 -> 2 -> 1 the same way: equal to the Python model
#      (tests/cluster_crash_oracle.py).
#   3. Each process with its own checkpoint folder: at the same parallelism
#      the job restores (each reads its own part); at another it is refused,
#      naming the part it cannot read.
# WEIR_CLUSTER_PAR_ROWS sizes it; the kill moments are seeded
# (WEIR_CLUSTER_PAR_SEED replays them).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_parallelism: SKIPPED (no weir-kafka-mock)"; exit 0
fi
SEED=${WEIR_CLUSTER_PAR_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_PAR_ROWS:-30000}
RATE=6000
RANDOM=$SEED
echo "test_cluster_parallelism: seed $SEED (WEIR_CLUSTER_PAR_SEED), $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-par
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in "$T"/*/log.*; do [ -f "$f" ] && { echo "== $f"; tail -6 "$f"; }; done
    exit 1
}

cluster_mock pa-control:1 pd-control:1 pe-control:1 pb-control:1 pb-tumbling_window-2-repartition:4 pc-control:1

# start NAME I P [CKDIR]: process I of 2 of job NAME at parallelism P
start() {
    cluster_start "$1" job.sql "$2" 2 -D pipeline.name="$1" -D parallelism.default="$3" \
        -D weir.cluster.repartition-partitions=4 -D state.checkpoints.dir="${4:-ck}" \
        -D execution.checkpointing.interval=150ms \
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000 \
        -D restart-strategy.fixed-delay.delay=0ms
}
# newest complete checkpoint id in CKDIR/process-I
newest() { ls "$1"/process-"$2" 2> /dev/null | sed -n 's/^chk-\([0-9]*\)$/\1/p' | sort -n | tail -1; }
# newer CKDIR0 ID0 CKDIR1 ID1: both processes have a newer checkpoint
newer() { [ "$(newest "$1" 0)" != "$2" ] && [ "$(newest "$3" 1)" != "$4" ]; }
# kill both once each has a checkpoint newer than the one before (or 30 s);
# CKDIR0 CKDIR1: the processes' checkpoint folders (default ck)
kill_after_checkpoint() {
    local d0=${1:-ck} d1=${2:-ck}
    local a=$(newest "$d0" 0) b=$(newest "$d1" 1)
    cluster_until 300 newer "$d0" "$a" "$d1" "$b"
    sleep "$((RANDOM % 4 + 1))e-1"
    kill -9 "${pids[0]}" "${pids[1]}" 2> /dev/null
    wait "${pids[0]}" "${pids[1]}" 2> /dev/null
    pids=(0 0)
}
# finish WHAT: both processes exit 0
finish() { cluster_reap "$1" 0 1; }

# 1. stateless
mkdir a && cd a || exit 1
cat > job.sql <<SQL
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS',
  'rows-per-second' = '$RATE',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id FROM g;
SQL
start pa 0 1; start pa 1 1
kill_after_checkpoint
start pa 0 2; start pa 1 2
kill_after_checkpoint
start pa 0 1; start pa 1 1
finish "stateless p 1 -> 2 -> 1"
n=$(cat out/part-* | wc -l)
u=$(cat out/part-* | sort -u | wc -l)
[ "$u" = "$ROWS" ] && [ "$n" = "$ROWS" ] ||
    fail "stateless p 1 -> 2 -> 1: $n rows, $u distinct, want $ROWS once each"
grep -q "parallelism in each process changed" log.pa.0 || fail "process 0 did not say the parallelism changed"
echo "  stateless job, p 1 -> 2 -> 1 on 2 processes: $n rows, each once"
cd .. || exit 1

# 1b. only the source's parallelism changes (the sink's stays 1): the
# source's own is read from its subtasks' records
mkdir a2 && cd a2 || exit 1
srcjob() {
    sed "s/'rows-per-second'/'scan.parallelism' = '$1', 'rows-per-second'/" ../a/job.sql > job.sql
}
srcjob 1
start pd 0 1; start pd 1 1
kill_after_checkpoint
srcjob 2
start pd 0 1; start pd 1 1
kill_after_checkpoint
srcjob 1
start pd 0 1; start pd 1 1
finish "source p 1 -> 2 -> 1"
n=$(cat out/part-* | wc -l)
u=$(cat out/part-* | sort -u | wc -l)
[ "$u" = "$ROWS" ] && [ "$n" = "$ROWS" ] ||
    fail "source p 1 -> 2 -> 1: $n rows, $u distinct, want $ROWS once each"
grep -q "operator 'datagen': 1, now 2" log.pd.0 || fail "process 0 did not say the source's parallelism changed"
echo "  only the source's parallelism, 1 -> 2 -> 1: $n rows, each once"
cd .. || exit 1

# 1c. a source none of whose splits were in process 1's part: process 1
# must see its parallelism change too (it used to decide from the splits
# of its own part, read only that part, and read b.csv again)
mkdir a3 && cd a3 || exit 1
mkdir in
seq "$ROWS" "$((ROWS + 499))" > in/a.csv
seq "$((ROWS + 500))" "$((ROWS + 999))" > in/b.csv
filejob() {
    cat > job.sql <<SQL
CREATE TABLE f (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv',
  'scan.parallelism' = '$1');
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS',
  'rows-per-second' = '$RATE',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id FROM f UNION ALL SELECT id FROM g;
SQL
}
filejob 2
start pe 0 1; start pe 1 1
kill_after_checkpoint
filejob 1
start pe 0 1; start pe 1 1
finish "file source p 2 -> 1"
n=$(cat out/part-* | wc -l)
u=$(cat out/part-* | sort -u | wc -l)
[ "$u" = "$((ROWS + 1000))" ] && [ "$n" = "$((ROWS + 1000))" ] ||
    fail "file source p 2 -> 1: $n rows, $u distinct, want $((ROWS + 1000)) once each"
for i in 0 1; do
    grep -q "operator 'filesystem': 2, now 1" log.pe.$i ||
        fail "process $i did not say the file source's parallelism changed"
done
echo "  a source whose splits were all in process 0, 2 -> 1: both processes see it, $n rows, each once"
cd .. || exit 1

# 2. keyed window job
mkdir b && cd b || exit 1
cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt
start pb 0 1; start pb 1 1
kill_after_checkpoint
start pb 0 2; start pb 1 2
kill_after_checkpoint
start pb 0 1; start pb 1 1
finish "window p 1 -> 2 -> 1"
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "window job p 1 -> 2 -> 1 differs from the model"
fi
echo "  window job, p 1 -> 2 -> 1 on 2 processes: $(wc -l < got.txt) windows, equal to the model"
cd .. || exit 1

# 3. a checkpoint folder per process
mkdir c && cd c || exit 1
cat ../a/job.sql > job.sql
start pc 0 1 ck0; start pc 1 1 ck1
kill_after_checkpoint ck0 ck1
: > log.pc.0
start pc 0 2 ck0; start pc 1 2 ck1
for i in 0 1; do
    wait "${pids[$i]}" && fail "process $i restored at another parallelism without the other's part"
    pids[$i]=0
done
grep -q "part of the checkpoint to restore is not there: a change of the parallelism in each process" log.pc.0 ||
    fail "process 0 did not name the part it cannot read"
start pc 0 1 ck0; start pc 1 1 ck1
finish "own checkpoint folders, same parallelism"
n=$(cat out/part-* | wc -l)
u=$(cat out/part-* | sort -u | wc -l)
[ "$u" = "$ROWS" ] && [ "$n" = "$ROWS" ] ||
    fail "own checkpoint folders: $n rows, $u distinct, want $ROWS once each"
echo "  a checkpoint folder per process: another parallelism refused by name, the same restores ($n rows, each once)"
echo "test_cluster_parallelism: OK"
