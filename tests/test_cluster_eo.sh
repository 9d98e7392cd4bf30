#!/usr/bin/env bash
# tests/test_cluster_eo.sh WEIR SOURCE_DIR - exactly-once sinks and idleness
# in a job run by three processes (docs/cluster.md), against librdkafka's
# mock cluster over TCP (weir-kafka-mock) and a throwaway PostgreSQL.
#   1. PostgreSQL: a windowed job with a keyed exchange into a 'jdbc' sink
#      with 'sink.delivery-guarantee' = 'exactly-once', a checkpoint every
#      200 ms, the three processes' checkpoints in one shared folder (so
#      their sinks hash to the same job: only the process in the
#      transaction ids tells them apart). One process, picked at random,
#      is killed with SIGKILL at seeded random moments and started again;
#      the others restart in their process. After every kill the table
#      holds no row the model does not have, and none twice; at the end it
#      equals the model (tests/cluster_crash_oracle.py) and no prepared
#      transaction is left.
#   2. Kafka: the same job into a 'kafka' sink with 'exactly-once'; no
#      restart strategy: a process that learns of another's restart exits,
#      and the test starts it again, like a supervisor. The mock has no
#      transactions (what a consumer reads proves nothing), so each
#      process's transactional steps (WEIR_KAFKA_SINK_LOG) are checked run
#      by run (tests/cluster_eo_oracle.py txn): its ids are its own, it
#      commits only what a completed checkpoint covers, every run commits
#      again what its restored checkpoint pre-committed and aborts what the
#      run before left open, nothing is left open; every row is in the
#      topic.
#   3. Idleness across processes: an unbounded Kafka source whose third
#      partition stays silent (its process goes idle after the source's
#      idle timeout), and one with two partitions for three processes (one
#      has no split, idle from the start): the windows fire, and what the
#      processes print equals the model (tests/cluster_eo_oracle.py); the
#      latter again with checkpoints, one process killed once windows have
#      fired, every process restoring, then more rows: the restored
#      readers and writer keep the idle producer idle (no marker is sent
#      again), so the new windows fire too.
# The parts run at the same time. Seeded (WEIR_CLUSTER_EO_SEED);
# WEIR_CLUSTER_EO_PG_KILLS (default 3, all must land),
# WEIR_CLUSTER_EO_KAFKA_KILLS (default 2, at least one must land before
# the job ends), WEIR_CLUSTER_EO_ROWS (default 18000) and
# WEIR_CLUSTER_EO_RATE (rows a second, default 3000) set the size; more
# kills need more rows. WEIR_CLUSTER_EO_PARTS picks parts ("pg kafka
# idle"); KEEP=1 keeps the work folder.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_cluster_eo: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_CLUSTER_EO_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_EO_ROWS:-18000}
PG_KILLS=${WEIR_CLUSTER_EO_PG_KILLS:-3}
K_KILLS=${WEIR_CLUSTER_EO_KAFKA_KILLS:-2}
PARTS=${WEIR_CLUSTER_EO_PARTS:-pg kafka idle}
RATE=${WEIR_CLUSTER_EO_RATE:-3000}
RANDOM=$SEED
echo "test_cluster_eo: seed $SEED (WEIR_CLUSTER_EO_SEED), $ROWS rows, $PG_KILLS kills (PostgreSQL), $K_KILLS (Kafka)"
T=$(mktemp -d /tmp/weir-cluster-eo-XXXXXX)
# The parts run at the same time, each in a subshell of its own (its own
# pids, its folder PART under T); the main shell owns the mock cluster and
# PostgreSQL.
pids=(0 0 0) parts=() PART=.
. "$SRC/tests/support/pg_server.sh"
cleanup() {
    for p in "${parts[@]}"; do kill -TERM "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
    [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null
    pg_stop
    [ -n "${KEEP:-}" ] || rm -rf "$T"; [ -n "${KEEP:-}" ] && echo "kept $T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in "$PART"/p*/log; do [ -f "$f" ] && { echo "== $f"; tail -6 "$f"; }; done
    exit 1
}
has() { [[ " $PARTS " == *" $1 "* ]]; }
# part NAME FUNCTION [ARGS]: FUNCTION in the background, output to NAME.out
part() {
    local name=$1 n=${#parts[@]}
    shift
    (
        PART=$name
        RANDOM=$((SEED * 8 + n)) # a subshell draws its own numbers
        trap 'for p in "${pids[@]}"; do [ "$p" != 0 ] && kill -9 "$p" 2> /dev/null; done' EXIT
        trap 'exit 1' TERM
        "$@"
    ) > "$name.out" 2>&1 &
    parts+=($!)
}

WT=tumbling_window-2-repartition
. "$SRC/tests/support/cluster.sh"
cluster_mock "pg-$WT:3" pg-control:1 "ka-$WT:3" ka-control:1 kout:3 \
    "i3-$WT:3" "i2-$WT:3" src3:3 src2:2 "i2r-$WT:3" i2r-control:1 src2r:2
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | LC_ALL=C sort > want.txt

# Event time is a function of the row number: row g at 1.7e12 + 7 g ms.
# job SINK-OPTIONS: the windowed job into table o
job() {
    cat <<EOF
CREATE TABLE g (id BIGINT, k AS MOD(id * 7919, 41), v AS MOD(id, 100),
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 7, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS', 'rows-per-second' = '$RATE',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (k BIGINT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH ($1);
INSERT INTO o SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
}

# start DIR I [-D ...]: process I of 3 of job DIR/job.sql, in DIR/pI (the
# same folder when it comes back), checkpoints in DIR/ck (shared)
start() {
    local d=$1 i=$2
    shift 2
    mkdir -p "$d/p$i"
    (cd "$d/p$i" && TZ=UTC exec "$WEIR" run ../job.sql -D rest.enabled=false -D pipeline.name="$d" \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=3 \
        -D weir.cluster.process-index="$i" -D state.checkpoints.dir="$T/$d/ck" \
        -D execution.checkpointing.interval=200ms "$@" >> out 2>> log) &
    pids[$i]=$!
}
alive() { [ "${pids[$1]}" != 0 ] && kill -0 "${pids[$1]}" 2> /dev/null; }

# ---- 1. PostgreSQL exactly-once ----
q() { psql -AtqX -F, -v ON_ERROR_STOP=1 -c "$1"; }
test_pg() {
    q "CREATE TABLE win (k bigint, ws timestamp(3), n bigint, s bigint)" > /dev/null
    rows() { q "SELECT k, to_char(ws, 'YYYY-MM-DD HH24:MI:SS.MS'), n, s FROM win" | LC_ALL=C sort; }
    mkdir -p pg
    job "'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PGPORT/postgres',
  'table-name' = 'win', 'username' = 'postgres', 'sink.delivery-guarantee' = 'exactly-once',
  'sink.buffer-flush.max-rows' = '50'" > pg/job.sql
    RS=(-D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000
        -D restart-strategy.fixed-delay.delay=0ms)
    start pg 0 "${RS[@]}"; start pg 1 "${RS[@]}"; start pg 2 "${RS[@]}"
    # the kills begin once a checkpoint has completed (rows committed), so
    # that the processes go back to one, not to the start
    for ((k = 0; k < 600; k++)); do
        [ "$(q "SELECT count(*) > 0 FROM win")" = t ] && break
        sleep 0.1
    done
    killed=0 t0=$SECONDS
    while ((killed < PG_KILLS)); do
        sleep "$((RANDOM % 8 + 6))e-1"
        v=$((RANDOM % 3))
        alive 0 || alive 1 || alive 2 || break
        alive "$v" || continue
        kill -9 "${pids[$v]}" 2> /dev/null
        wait "${pids[$v]}" 2> /dev/null
        echo "--- killed at $((SECONDS - t0)) s" >> "pg/p$v/log"
        killed=$((killed + 1))
        # what a reader sees now: a part of the model's rows, none twice
        extra=$(rows | LC_ALL=C comm -13 want.txt - | head -3)
        [ -z "$extra" ] || fail "after kill $killed: rows the model does not have, or twice: $extra"
        start pg "$v" "${RS[@]}"
        ((SECONDS - t0 > 150)) && fail "still running after 150 s ($killed kills)"
    done
    for i in 0 1 2; do
        for ((k = 0; k < 1800; k++)); do alive "$i" || break; sleep 0.1; done
        alive "$i" && fail "PostgreSQL: process $i did not finish in 180 s after the last kill"
        wait "${pids[$i]}" || fail "PostgreSQL: process $i failed"
        pids[$i]=0
    done
    # the job may end before the last kills on a loaded machine: one must land
    ((killed >= 1)) || fail "PostgreSQL: the job ended before a kill (WEIR_CLUSTER_EO_RATE)"
    rows > got.txt
    if ! cmp -s want.txt got.txt; then
        diff want.txt got.txt > diff.txt
        echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"; head -5 diff.txt
        fail "PostgreSQL: 3 processes with $killed kills differ from the model"
    fi
    left=$(q "SELECT count(*) FROM pg_prepared_xacts")
    [ "$left" = 0 ] || fail "PostgreSQL: $left prepared transactions left"
    restores=$(cat pg/p*/log | grep -c "restoring from checkpoint")
    recovered=$(cat pg/p*/log | grep -c "prepared transactions\? of an earlier run")
    echo "  [${SECONDS}s] PostgreSQL: $killed kills ($restores restores, $recovered sinks resolved prepared transactions): $(wc -l < got.txt) windows, equal to the model, none prepared left"
}

# ---- 2. Kafka exactly-once (transactional ids per process) ----
test_kafka() {
    mkdir -p ka
    job "'connector' = 'kafka', 'topic' = 'kout', 'properties.bootstrap.servers' = '$B',
  'format' = 'csv', 'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'wtx'" > ka/job.sql
    runs=(0 0 0)
    # kstart I: run runs[I] of process I, its steps in ka/txn.I
    kstart() {
        mkdir -p "ka/p$1"
        echo "run ${runs[$1]}" >> "ka/txn.$1"
        echo "=== run ${runs[$1]}" >> "ka/p$1/log"
        export WEIR_KAFKA_SINK_LOG=$T/ka/txn.$1
        start ka "$1"
        unset WEIR_KAFKA_SINK_LOG
        runs[$1]=$((runs[$1] + 1))
    }
    # tend: a process that exited because another restarted goes again
    done_=(0 0 0)
    tend() {
        for i in 0 1 2; do
            [ "${pids[$i]}" = 0 ] && continue
            alive "$i" && continue
            if wait "${pids[$i]}"; then
                pids[$i]=0; done_[$i]=1
            else
                grep -q "restarted: every process goes on" "ka/p$i/log" || fail "Kafka: process $i failed"
                kstart "$i"
            fi
        done
    }
    kstart 0; kstart 1; kstart 2
    # A kill 0.5 to 2 s after a checkpoint completed (a commit in some
    # process's steps) that the runs after the last kill took (counted
    # from 1.5 s after it), so that the runs restore checkpoints.
    killed=0 t0=$SECONDS next=0 seen=-1 quiet=0
    commits() { cat ka/txn.* | grep -c '^commit'; }
    while ((done_[0] + done_[1] + done_[2] < 3)); do
        sleep 0.1
        tend
        ((SECONDS - t0 > 150)) && fail "Kafka: still running after 150 s ($killed kills)"
        ((killed < K_KILLS)) || continue
        now=$((SECONDS * 10))
        if ((seen < 0)); then
            ((now >= quiet)) && seen=$(commits)
            continue
        fi
        if ((next == 0)); then
            (($(commits) > seen)) && next=$((now + RANDOM % 16 + 5))
            continue
        fi
        ((now >= next)) || continue
        next=0 seen=-1 quiet=$((now + 15))
        v=$((RANDOM % 3))
        alive "$v" || continue
        kill -9 "${pids[$v]}" 2> /dev/null
        wait "${pids[$v]}" 2> /dev/null
        killed=$((killed + 1))
        kstart "$v"
    done
    # the job may end before the last kills: one must land
    ((killed >= 1)) || fail "Kafka: the job ended before a kill (WEIR_CLUSTER_EO_RATE)"
    bad=0
    for i in 0 1 2; do
        # the checkpoint each run restored (0: none)
        awk '/^=== run/ { if (n++) print r + 0; r = 0 }
             /restoring from checkpoint/ && !r { if (match($0, /chk-[0-9]+/)) r = substr($0, RSTART + 4, RLENGTH - 4) }
             END { print r + 0 }' "ka/p$i/log" > "ka/restored.$i"
        python3 "$SRC/tests/cluster_eo_oracle.py" txn "$i" "ka/txn.$i" "ka/restored.$i" || bad=1
    done
    ((bad)) && fail "Kafka: the transactional steps break the protocol (see above)"
    # every window is in the topic (transactions are not enforced by the
    # mock: aborted ones are read too)
    kcat -C -b "$B" -t kout -e -q -f '%s\n' 2> /dev/null | LC_ALL=C sort -u > kgot.txt
    missing=$(LC_ALL=C comm -23 want.txt kgot.txt | head -3)
    [ -z "$missing" ] || fail "Kafka: windows missing from the topic: $missing"
    echo "  [${SECONDS}s] Kafka: $killed kills, $((runs[0] + runs[1] + runs[2])) runs of the processes; transactional ids per process, protocol kept"
}

# ---- 3. idleness across processes ----
# idle NAME TOPIC PARTITIONS-WITH-ROWS RULE [-D ...]: 3 processes read TOPIC
# without end; once what they print equals the model, and stays so for a
# second, they are stopped.
idle() {
    local restore=0
    [ "$1" = --restore ] && { restore=1; shift; }
    local d=$1 topic=$2 parts=$3 rule=$4
    shift 4
    mkdir -p "$d"
    # with --restore: twice the rows, the second half written after a kill
    python3 "$SRC/tests/cluster_eo_oracle.py" idle "$SEED" $((1500 * (1 + restore))) "$rule" "$d/data.tsv" \
        "$d/want.txt" $parts || fail "the model"
    # produce HALF: rows [1500 HALF, 1500 HALF + 1500) of each partition
    # (all of them without --restore)
    produce() {
        for p in $parts; do
            awk -F'\t' -v p="$p" -v h="$1" -v r=$restore \
                '$1 == p { n = c[p]++; if (!r || int(n / 1500) == h) print $2 }' "$d/data.tsv" |
                kcat -P -b "$B" -t "$topic" -p "$p" || fail "kcat could not produce"
        done
    }
    produce 0
    cat > "$d/job.sql" <<EOF
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '$topic', 'properties.bootstrap.servers' = '$B',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
    local want n=0 same=0 v=0 opts=("$@")
    ((restore)) && opts+=(-D state.checkpoints.dir="$T/$d/ck" -D execution.checkpointing.interval=200ms
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=100
        -D restart-strategy.fixed-delay.delay=0ms)
    want=$(wc -l < "$d/want.txt")
    ((want > 20)) || fail "idleness $d: the model fires only $want windows"
    istart() {
        mkdir -p "$d/p$1"
        (cd "$d/p$1" && TZ=UTC exec "$WEIR" run ../job.sql -D rest.enabled=false -D pipeline.name="$d" \
            -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=3 \
            -D weir.cluster.process-index="$1" "${opts[@]}" >> out 2>> log) &
        pids[$1]=$!
    }
    istart 0; istart 1; istart 2
    if ((restore)); then
        # Once windows fire, and checkpoints were taken after that, one
        # process dies and comes back: every process restores, the idle
        # producer idle in the readers' positions and in its writer's
        # state (it sends no marker again); then the second half of the
        # rows, whose windows fire only if it still counts as idle.
        local until=$((SECONDS + 60))
        while ((SECONDS < until)); do
            sleep 0.1
            [ -s "$d/p0/out" ] || [ -s "$d/p1/out" ] || [ -s "$d/p2/out" ] || continue
            same=$((same + 1))
            ((same >= 15)) && break
        done
        ((same >= 15)) || fail "idleness $d: no window fired before the kill"
        v=$((RANDOM % 3))
        kill -9 "${pids[$v]}" 2> /dev/null
        wait "${pids[$v]}" 2> /dev/null
        istart "$v"
        produce 1
        same=0
    fi
    local until=$((SECONDS + 60))
    while ((SECONDS < until)); do
        sleep 0.1
        for i in 0 1 2; do alive "$i" || fail "idleness $d: process $i ended"; done
        n=$(cat "$d"/p*/out | LC_ALL=C sort -u | wc -l)
        ((n >= want)) && same=$((same + 1))
        ((same >= 10)) && break
    done
    for i in 0 1 2; do kill -9 "${pids[$i]}" 2> /dev/null; wait "${pids[$i]}" 2> /dev/null; pids[$i]=0; done
    # After a restore the windows fired after the checkpoint are printed
    # again (the print sink is not transactional): each distinct line once.
    if ((restore)); then
        cat "$d"/p*/out | LC_ALL=C sort -u > "$d/got.txt"
    else
        cat "$d"/p*/out | LC_ALL=C sort > "$d/got.txt"
    fi
    if ! cmp -s "$d/want.txt" "$d/got.txt"; then
        diff "$d/want.txt" "$d/got.txt" | head -5
        fail "idleness $d: $n windows printed, the model has $want"
    fi
    local how="watermark at the $rule of the partitions with rows"
    ((restore)) && how="$how; process $v killed, all restored, then more rows"
    echo "  [${SECONDS}s] idleness, $d: $want windows, equal to the model ($how)"
}
if has pg; then
    pg_start "$T/pgdata" || fail "cannot start PostgreSQL"
    part pg test_pg
fi
has kafka && part ka test_kafka
if has idle; then
    # a silent third partition: its process goes idle after 300 ms
    part i3 idle i3 src3 "0 1" max -D table.exec.source.idle-timeout=300ms
    # two partitions for three processes: one reads none (idle at once);
    # the others never go idle (no timeout)
    part i2 idle i2 src2 "0 1" min
    # the same with checkpoints: a restore keeps the idle producer idle
    part i2r idle --restore i2r src2r "0 1" min
fi
bad=0
for p in "${parts[@]}"; do wait "$p" || bad=1; done
parts=()
for name in pg ka i3 i2 i2r; do [ -f "$name.out" ] && cat "$name.out"; done
((bad)) && { echo "test_cluster_eo: FAILED (seed $SEED)"; exit 1; }
cluster_views_checked "$T"
echo "test_cluster_eo: OK"
