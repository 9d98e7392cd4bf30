#!/usr/bin/env bash
# tests/test_cluster_members.sh WEIR SOURCE_DIR - automatic membership of a
# job run by several processes (docs/cluster.md, "Automatic membership"),
# against librdkafka's mock cluster over TCP (weir-kafka-mock).
#
# Three processes start WITHOUT weir.cluster.process-index: the control
# topic numbers them. They run a windowed job with a keyed exchange (a
# repartition topic of 8 partitions) into one exactly-once file sink folder
# they share, with a checkpoint every 200 ms into one shared checkpoint
# folder, heartbeats every 100 ms and a session timeout of 3 s (1.5 s saw
# a newly joined process silent for longer at load ~20 on 2 cores: a
# starved process, not a lost one; weir's default is 10 s). Mid-run a
# process that does not lead is killed with SIGKILL and NOT started again:
# the leader evicts it and the two others go on. Then the leader is killed:
# the other one evicts it and leads alone. Then a fresh process without an
# index starts: it joins as a second process. Then: the committed files
# equal the single-process run and a Python model of the job
# (tests/cluster_crash_oracle.py): nothing lost, nothing twice.
# WEIR_CLUSTER_MEMBERS_ROWS, _RATE and _TIMEOUT (the session timeout) size
# it; the moments are seeded (WEIR_CLUSTER_MEMBERS_SEED replays them).
# WEIR_CLUSTER_MEMBERS_STOP=1 stops the two victims (SIGSTOP) instead of
# killing them, and wakes each once the others went on without it: it must
# exit with status 1, saying that it is no longer a member (its woken run
# may leave hidden in-progress files, never visible ones: that check is
# left out then).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ]; then
    echo "test_cluster_members: SKIPPED (no weir-kafka-mock)"; exit 0
fi
SEED=${WEIR_CLUSTER_MEMBERS_SEED:-${WEIR_SEED:-$RANDOM}}
ROWS=${WEIR_CLUSTER_MEMBERS_ROWS:-28000}
RATE=${WEIR_CLUSTER_MEMBERS_RATE:-1500}
TIMEOUT=${WEIR_CLUSTER_MEMBERS_TIMEOUT:-3000ms}
case "$TIMEOUT" in
*ms) TIMEOUT_MS=${TIMEOUT%ms} ;;
*s) TIMEOUT_MS=$(( ${TIMEOUT%s} * 1000 )) ;;
*) echo "WEIR_CLUSTER_MEMBERS_TIMEOUT: '$TIMEOUT' is not N ms or N s"; exit 1 ;;
esac
STOP=${WEIR_CLUSTER_MEMBERS_STOP:-0}
RANDOM=$SEED
echo "test_cluster_members: seed $SEED (WEIR_CLUSTER_MEMBERS_SEED), $ROWS rows at $RATE/s, session timeout $TIMEOUT"
. "$SRC/tests/support/cluster.sh"
cluster_scratch cluster-members
pids=(0 0 0 0)
fail() {
    echo "FAIL (seed $SEED): $*"
    for f in log.* single.log; do [ -f "$f" ] && { echo "== $f"; tail -8 "$f"; }; done
    exit 1
}

cluster_mock members-tumbling_window-2-repartition:8 members-control:1
# A start looks for the control topic's last summary back from its end 16
# records at a time, and the leader writes one every 32 records (the
# heartbeats among them) besides those of its start and of each completed
# checkpoint: the fresh process of step 3 reads a part of the log only.
export WEIR_TEST_CLUSTER_SUMMARY_CHUNK=16 WEIR_TEST_CLUSTER_SUMMARY_EVERY=32

cluster_window_job "'rows-per-second' = '$RATE'," out > job.sql
cluster_window_job "" single > single.sql
python3 "$SRC/tests/cluster_crash_oracle.py" "$ROWS" | sort > want.txt

TZ=UTC timeout 120 "$WEIR" run single.sql -D rest.enabled=false > /dev/null 2> single.log ||
    fail "the single-process run"
cat single/part-* 2> /dev/null | sort > single.txt
diff want.txt single.txt > /dev/null || fail "the single-process run differs from the oracle"

# start P [REST]: process P (0 to 3, the test's name for it, not its
# index), no index given; all share the folders
start() {
    (TZ=UTC exec "$WEIR" run job.sql -D rest.enabled="${2:-false}" -D rest.port=0 -D pipeline.name=members \
        -D weir.cluster.bootstrap-servers="$B" -D weir.cluster.processes=3 \
        -D weir.cluster.repartition-partitions=8 \
        -D weir.cluster.heartbeat-interval=100ms -D weir.cluster.session-timeout="$TIMEOUT" \
        -D state.checkpoints.dir=ck -D execution.checkpointing.interval=200ms \
        -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.attempts=1000 \
        -D restart-strategy.fixed-delay.delay=0ms > /dev/null 2>> "log.$1") &
    pids[$1]=$!
}
running() { for p in "$@"; do cluster_alive "$p" || fail "process $p ended early"; done; }
# await P TEXT: until TEXT is in log P (or 30 s)
await() {
    cluster_until 300 grep -q "$2" "log.$1" 2> /dev/null || fail "log.$1 never said '$2'"
}
# silence P: kill P, or stop it (STOP=1; woken later by evicted)
silence() {
    if [ "$STOP" = 1 ]; then kill -STOP "${pids[$1]}"; return; fi
    kill -9 "${pids[$1]}"; wait "${pids[$1]}" 2> /dev/null; pids[$1]=0
}
# evicted P: with STOP=1, wake P, which must exit with status 1 saying why
evicted() {
    [ "$STOP" = 1 ] || return 0
    kill -CONT "${pids[$1]}"
    cluster_ends 300 "$1" || fail "process $1, evicted and woken, did not exit in 30 s"
    wait "${pids[$1]}"; local rc=$?
    pids[$1]=0
    [ "$rc" = 1 ] || fail "process $1, evicted and woken, exited with $rc, not 1"
    grep -q "is no longer a member of the job" "log.$1" || fail "process $1 did not say it was evicted"
}
# index P: P's index in its latest run ("process I of N at epoch E")
index() { grep -o 'process [0-9]* of [0-9]* at epoch' "log.$1" | tail -1 | cut -d' ' -f2; }

start 0; start 1; start 2
for p in 0 1 2; do await "$p" "of 3 at epoch"; done
idx=("$(index 0)" "$(index 1)" "$(index 2)")
[ "$(printf '%s\n' "${idx[@]}" | sort | tr '\n' ' ')" = "0 1 2 " ] ||
    fail "the three processes did not get indexes 0, 1 and 2: ${idx[*]}"
# (each member's parts are in ck/member-<id>/)
cluster_until 300 compgen -G "ck/member-*/chk-*" > /dev/null
sleep "$((RANDOM % 5 + 3))e-1"
running 0 1 2

# 1. a process that does not lead dies and stays dead: the others go on
for p in 0 1 2; do [ "${idx[$p]}" = 0 ] && leader=$p; done
others=()
for p in 0 1 2; do [ "$p" != "$leader" ] && others+=("$p"); done
victim=${others[$((RANDOM % 2))]}
for p in "${others[@]}"; do [ "$p" != "$victim" ] && other=$p; done
silence "$victim"
await "$leader" "was silent for longer than weir.cluster.session-timeout"
await "$other" "was silent for longer than weir.cluster.session-timeout"
await "$leader" "process 0 of 2 at epoch"
await "$other" "process 1 of 2 at epoch"
evicted "$victim"
sleep "$((RANDOM % 5 + 3))e-1"
running "$leader" "$other"

# 2. the leader dies: the other one evicts it and leads alone
silence "$leader"
await "$other" "process 0 of 1 at epoch"
evicted "$leader"
sleep "$((RANDOM % 4 + 3))e-1"
running "$other"

# 3. a fresh process without an index joins: the job goes on with two;
# its GET /cluster shows both members, their ids, pids and heartbeats
start 3 true
await 3 "process 1 of 2 at epoch"
await 3 "http://"
grep -q "the job had ended there" log.3 &&
    fail "the input ended before the fourth process joined (lower WEIR_CLUSTER_MEMBERS_RATE)"
url=$(grep -o 'http://[0-9.:]*/' log.3 | head -1)
# (until both joined the new epoch, for 3 s at most: process 0 may still
# be restoring)
for ((k = 0; k < 30; k++)); do
    curl -sf "${url}cluster" > cluster.now 2> /dev/null && cp cluster.now cluster.json &&
        python3 -c 'import json,sys; d=json.load(open("cluster.json")); sys.exit(any(m["heartbeat_age_ms"] is None or not m["joined"] for m in d["members"]))' 2> /dev/null &&
        break
    sleep 0.1
done
python3 - cluster.json "${pids[3]}" "${pids[$other]}" "$TIMEOUT_MS" <<'PY' || fail "GET /cluster: wrong membership"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["membership"] == "automatic" and d["processes"] == 2 and d["self"] == 1, d
m0, m1 = d["members"]
assert m0["index"] == 0 and m0["leader"] and not m1["leader"], d
assert m1["pid"] == int(sys.argv[2]) and m0["pid"] == int(sys.argv[3]), d
for m in (m0, m1):
    assert re.fullmatch("[0-9a-f]{16}", m["member"]) and m["host"], m
    assert m["heartbeat_age_ms"] is not None and 0 <= m["heartbeat_age_ms"] < int(sys.argv[3]), m
assert m0["member"] != m1["member"] and m1["joined"]
PY
# (its start read less of the log than a read from offset 0)
read3=$(grep -m1 "the same view" log.3)
python3 - "$read3" <<'PY' || fail "the fresh process did not start from a summary: $read3"
import re, sys
m = re.search(r"read (\d+) records from offset (\d+) \(summary at (\d+)\), the whole log (\d+)", sys.argv[1])
assert m and int(m.group(1)) < int(m.group(4)), sys.argv[1]
PY
await "$other" "joined the job as process 1"
cluster_finish "$other" 3
cat out/part-* 2> /dev/null | sort > got.txt
if ! diff want.txt got.txt > diff.txt; then
    echo "lost: $(grep -c '^<' diff.txt), extra or twice: $(grep -c '^>' diff.txt)"
    head -5 diff.txt
    fail "3 processes, one evicted, the leader evicted, one joining: the output differs from the model"
fi
left=$(ls -a out | grep inprogress)
[ -z "$left" ] || [ "$STOP" = 1 ] || fail "hidden files left in the sink folder: $(echo "$left" | head -3)"
echo "  3 -> 2 (evicted) -> 1 (leader evicted) -> 2 (joined): $(wc -l < got.txt) windows, equal to one process and to the model"
cluster_views_checked "$T"
echo "test_cluster_members: OK"
