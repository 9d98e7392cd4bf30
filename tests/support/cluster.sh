# tests/support/cluster.sh - what the tests of a job run by several weir
# processes share (sourced; needs MOCK, the weir-kafka-mock binary, WEIR,
# the weir binary, and fail).
#
# Every weir started after cluster_mock checks its start's reading of the
# control topic (WEIR_TEST_CLUSTER_CHECK_LOG): the view it reached from the
# log's last summary record must be the one a read from offset 0 gives
# (a difference fails that start); cluster_views_checked says whether one
# did.
#
# cluster_scratch NAME - makes the test's scratch folder T
# (/tmp/weir-NAME-XXXXXX) and goes there; at exit, kills every process
# whose id is in the array pids (0: none), stops the mock cluster and
# removes T (KEEP=1 keeps it and says where).
cluster_scratch() {
    T=$(mktemp -d "/tmp/weir-$1-XXXXXX") || exit 1
    pids=(0 0)
    trap cluster_cleanup EXIT
    cd "$T" || exit 1
}
cluster_cleanup() {
    for p in "${pids[@]}"; do [ "$p" != 0 ] && kill -9 "$p" 2> /dev/null; done
    [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$T"; [ -n "${KEEP:-}" ] && echo "kept $T"
}

# cluster_mock TOPIC:PARTITIONS... - starts librdkafka's mock cluster over
# TCP with these topics (its process id in MOCK_PID, for the caller's exit
# trap), waits for it, and sets B to its bootstrap address.
cluster_mock() {
    "$MOCK" -f boot "$@" > mock.log 2>&1 &
    MOCK_PID=$!
    local i
    for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
    [ -s boot ] || fail "the mock cluster did not start"
    B=$(cat boot)
    export WEIR_TEST_CLUSTER_CHECK_LOG=1
}

# cluster_start GROUP SQL I N [ARGS...] - starts process I of N of the
# cluster job SQL in group GROUP (the mock cluster's B) in the background,
# its id in pids[I], its log appended to log.GROUP.I, its stdout to
# out.GROUP.I; ARGS: the test's own options (name, parallelism,
# partitions, checkpoints, --from).
cluster_start() {
    local g=$1 sql=$2 i=$3 n=$4
    shift 4
    (TZ=UTC exec "$WEIR" run "$sql" -D rest.enabled=false -D weir.cluster.group-id="$g" -D weir.cluster.bootstrap-servers="$B" \
        -D weir.cluster.processes="$n" -D weir.cluster.process-index="$i" "$@" \
        > "out.$g.$i" 2>> "log.$g.$i") &
    pids[$i]=$!
}

# cluster_alive I - whether process I (pids[I]) still runs.
cluster_alive() { kill -0 "${pids[$1]}" 2> /dev/null; }

# cluster_until TENTHS COMMAND... - runs COMMAND every 0.1 s until it
# succeeds, TENTHS times at most, then once more: its status is that of
# the last run (the caller fails on it with its own message). COMMAND's
# words are expanded once, by the caller: a glob to look for again each
# time goes quoted to compgen -G, or inside a function.
cluster_until() {
    local n=$1 k
    shift
    for ((k = 0; k < n; k++)); do "$@" && return 0; sleep 0.1; done
    "$@"
}

# cluster_gone TENTHS PID - waits (0.1 s at a time, TENTHS times at most)
# for the process PID to end; status 1 when it still runs.
cluster_gone() {
    local n=$1 p=$2 k
    for ((k = 0; k < n; k++)); do kill -0 "$p" 2> /dev/null || return 0; sleep 0.1; done
    ! kill -0 "$p" 2> /dev/null
}
# cluster_ends TENTHS I - cluster_gone for process I (pids[I]).
cluster_ends() { cluster_gone "$1" "${pids[$2]}"; }

# cluster_finish I... - each process I ends within 120 s with status 0
# (else fail: "process I did not finish in 120 s", "process I failed");
# pids[I] becomes 0.
cluster_finish() {
    local i
    for i in "$@"; do
        cluster_ends 1200 "$i" || fail "process $i did not finish in 120 s"
        wait "${pids[$i]}" || fail "process $i failed"
        pids[$i]=0
    done
}

# cluster_reap WHAT I... - each process I exits with status 0, however
# long it takes (else fail: "WHAT: process I failed"); pids[I] becomes 0.
cluster_reap() {
    local what=$1 i
    shift
    for i in "$@"; do
        wait "${pids[$i]}" || fail "$what: process $i failed"
        pids[$i]=0
    done
}

# cluster_wait_all PID... - each process PID ends within 120 s with
# status 0 (else fail: "a process did not finish in 120 s", "a process
# failed").
cluster_wait_all() {
    local p
    for p in "$@"; do
        cluster_gone 1200 "$p" || fail "a process did not finish in 120 s"
        wait "$p" || fail "a process failed"
    done
}

# cluster_views_checked DIR [MIN] - fails when a start under DIR (its
# log* files) read another view of the control topic from a summary than
# from offset 0, or when fewer than MIN (default 1) starts read from a
# summary; prints how many starts were checked.
cluster_views_checked() {
    local bad n s
    bad=$(grep -rh --include='log*' "differ in:" "$1" 2> /dev/null | head -3)
    [ -z "$bad" ] || fail "a start's view of the control topic: $bad"
    n=$(grep -rh --include='log*' "the same view" "$1" 2> /dev/null | wc -l)
    s=$(grep -rh --include='log*' "the same view" "$1" 2> /dev/null | grep -vc "summary at -1")
    [ "$s" -ge "${2:-1}" ] ||
        fail "only $s of $n starts read the control topic from a summary"
    echo "  control topic: $n starts, $s from a summary, each the view of a read from offset 0"
}

# cluster_window_job SOURCE-OPTIONS SINK-PATH - the windowed job of the
# crash and rescale tests (cluster_crash_oracle.py models it): ROWS
# generated rows, event time a function of the row number (row g at
# 1.7e12 + 7 g ms), a 1-second TUMBLE COUNT/SUM per key into CSV files.
cluster_window_job() {
    cat <<SQL
CREATE TABLE g (id BIGINT, k AS MOD(id * 7919, 41), v AS MOD(id, 100),
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 7, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS', $1
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '$((ROWS - 1))');
CREATE TABLE o (k BIGINT, ws TIMESTAMP(3), n BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'csv');
INSERT INTO o SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
SQL
}
