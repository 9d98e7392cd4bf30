#!/usr/bin/env bash
# tests/test_cluster_savepoint.sh WEIR SOURCE_DIR - savepoints of a job run
# by several processes (docs/cluster.md, "Savepoints"), against librdkafka's
# mock cluster over TCP (weir-kafka-mock).
#
# Three processes run the windowed job of the crash and rescale tests
# (tests/support/cluster.sh) into one exactly-once file sink folder, with a
# checkpoint every 200 ms into one shared checkpoint folder. Mid-run, at a
# seeded moment, `weir savepoint PID` (an intermediate savepoint, asked of
# process 1) and then `weir savepoint PID --stop` (asked of process 2)
# are taken: every process exits 0, and the CLI prints the savepoint's path.
# The savepoint is then restored (--from) by three processes and, apart,
# by two (fresh control and repartition topics: another group id), each
# into a copy of the sink folder as the stop left it; each ends with the
# output of the single-process run and of the Python model of the job
# (tests/cluster_crash_oracle.py), row for row. Then the rescale case that
# keeps processes x parallelism: two processes of parallelism 2 killed
# after a checkpoint, four of parallelism 1 started: the same output.
# WEIR_CLUSTER_SP_ROWS and _RATE size it; WEIR_CLUSTER_SP_SEED replays the
# moments.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_savepoint: SKIPPED (no weir-kafka-mock)"; exit 0
fi
SEED=${WEIR_CLUSTER_SP_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_SP_ROWS:-120000}
RATE=${WEIR_CLUSTER_SP_RATE:-8000}
RANDOM=$SEED
echo "test_cluster_savepoint: seed $SEED (WEIR_CLUSTER_SP_SEED), $ROWS rows at $RATE/s"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-sp
pids=(0 0 0 0)
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in "$T"/log.* "$T"/single.log; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock spa-tumbling_window-2-repartition:8 spa-control:1 \
    spb-tumbling_window-2-repartition:8 spb-control:1 \
    spc-tumbling_window-2-repartition:8 spc-control:1 \
    spd-tumbling_window-2-repartition:8 spd-control:1

cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
# the restored jobs read the rest at full speed (the rate is not state), the
# rescaled one's first processes at twice the rate. Only the runs that are
# stopped or killed mid-run read at the rate: the input is long (at the rate,
# several times what a loaded machine needs to reach the stop), and costs
# nothing more where it is read at full speed.
cluster_window_job "" out > fast.sql
cluster_window_job "'rows-per-second' = '$((RATE * 2))'," out > fast2.sql
cluster_window_job "" single > single.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

TZ=UTC timeout 120 "$WEIR" run single.sql -D rest.enabled=false > /dev/null 2> single.log ||
    fail "the single-process run"
cat single/part-* 2> /dev/null | sort > single.txt
diff want.txt single.txt > /dev/null || fail "the single-process run differs from the oracle"

# start GROUP I N DIR [ARGS...]: process I of N of the job GROUP (job.sql,
# or $JOB), run in
# the folder DIR (its sink folder DIR/out and checkpoints DIR/ck shared by
# the group's processes; the savepoints in one folder for all)
start() {
    local g=$1 i=$2 n=$3 d=$4
    shift 4
    mkdir -p "$d"
    (cd "$d" && TZ=UTC exec "$WEIR" run "$T/${JOB:-job.sql}" -D rest.enabled=false -D pipeline.name=sp \
        -D weir.cluster.group-id="$g" \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes="$n" \
        -D weir.cluster.process-index="$i" -D weir.cluster.repartition-partitions=8 \
        -D state.checkpoints.dir=ck -D execution.checkpointing.interval=200ms \
        -D state.savepoints.dir="$T/sp" \
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000 \
        -D restart-strategy.fixed-delay.delay=0ms "$@" > /dev/null 2>> "$T/log.$g.$i") &
    pids[$i]=$!
}
# the seconds since the test started, for the lines it prints
t0=$(date +%s%N)
took() { echo "$(( ($(date +%s%N) - t0) / 100000000 ))" | sed 's/.$/.&/'; }
# checkpointed DIR: process 0 of the group in DIR has a checkpoint
checkpointed() { ls "$1"/ck/process-0 2> /dev/null | grep -q chk; }
# compare DIR WHAT: the committed files of DIR equal the model
compare() {
    cat "$1"/out/part-* 2> /dev/null | sort > "got-$1.txt"
    if ! diff want.txt "got-$1.txt" > "diff-$1.txt"; then
        echo "lost: $(grep -c '^<' "diff-$1.txt"), extra or twice: $(grep -c '^>' "diff-$1.txt")"
        head -5 "diff-$1.txt"
        fail "$2 differs from the model"
    fi
    echo "  $2: $(wc -l < "got-$1.txt") windows, equal to one process and to the model ($(took) s)"
}

# 1. Three processes; an intermediate savepoint, then a stop with one.
start spa 0 3 a; start spa 1 3 a; start spa 2 3 a
t_run=$(date +%s%N)
cluster_until 300 checkpointed a
sleep "$((RANDOM % 4 + 3))e-1"
for i in 0 1 2; do cluster_alive "$i" || fail "process $i ended before the savepoint"; done
p1=$(timeout 60 "$WEIR" savepoint "${pids[1]}" 2> sp1.err) || fail "weir savepoint: $(cat sp1.err)"
[ -f "$p1/_cluster" ] || fail "weir savepoint printed '$p1', which has no _cluster"
for j in 0 1 2; do [ -f "$p1/process-$j/_metadata" ] || fail "$p1 has no part of process $j"; done
t_p1=$(took)
# The stop must come mid-run: when the first savepoint took long (a loaded
# machine), past a third of the run's planned length, it is asked at once.
pause="$((RANDOM % 4 + 2))e-1"
[ $(( ($(date +%s%N) - t_run) / 1000000 )) -lt $(( ROWS * 1000 / RATE / 3 )) ] && sleep "$pause"
for i in 0 1 2; do cluster_alive "$i" || fail "process $i ended before the stop"; done
sp=$(timeout 60 "$WEIR" savepoint "${pids[2]}" --stop 2> sp2.err) ||
    fail "weir savepoint --stop: $(cat sp2.err)"
[ -f "$sp/_cluster" ] || fail "weir savepoint --stop printed '$sp', which has no _cluster"
cluster_finish 0 1 2
echo "  savepoints $p1 (at $t_p1 s) and $sp (--stop) of three processes; all exited 0 ($(took) s)"
n_before=$(cat a/out/part-* 2> /dev/null | wc -l)
[ "$n_before" -gt 0 ] && [ "$n_before" -lt "$(wc -l < want.txt)" ] ||
    fail "the stop left $n_before windows committed: not mid-run"

# 2. Restored by three processes, and by two.
mkdir b c
cp -r a/out b/out
cp -r a/out c/out
JOB=fast.sql
start spb 0 3 b --from "$sp"; start spb 1 3 b --from "$sp"; start spb 2 3 b --from "$sp"
cluster_finish 0 1 2
grep -q "restoring savepoint" log.spb.0 || fail "process 0 did not restore the savepoint"
compare b "3 processes -> savepoint --stop -> 3 processes"
start spc 0 2 c --from "$sp"; start spc 1 2 c --from "$sp"
cluster_finish 0 1
compare c "3 processes -> savepoint --stop -> 2 processes"
JOB=job.sql

# 3. processes x parallelism stays 4: two of parallelism 2, then four of 1.
JOB=fast2.sql
start spd 0 2 d -D parallelism.default=2; start spd 1 2 d -D parallelism.default=2
cluster_until 300 checkpointed d
sleep "$((RANDOM % 4 + 2))e-1"
for i in 0 1; do cluster_alive "$i" || fail "process $i ended before the rescale"; kill -9 "${pids[$i]}"; wait "${pids[$i]}" 2> /dev/null; pids[$i]=0; done
JOB=fast.sql
for i in 0 1 2 3; do start spd "$i" 4 d -D parallelism.default=1; done
cluster_finish 0 1 2 3
compare d "2 processes x 2 -> 4 processes x 1"
cluster_views_checked "$T"
echo "test_cluster_savepoint: OK"
