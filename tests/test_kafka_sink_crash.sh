#!/usr/bin/env bash
# tests/test_kafka_sink_crash.sh WEIR SOURCE_DIR - the Kafka sinks across
# kill -9 and restart (`weir run` resumes from its newest checkpoint),
# against weir-kafka-mock:
# - at-least-once: a generator (one sequence, throttled) -> 'kafka'; after
#   the kills every id is in the topic (duplicates allowed, counted);
# - upsert-kafka: the same rows -> GROUP BY (updating) -> 'upsert-kafka';
#   the compacted topic (last value per key) equals an uninterrupted run's;
# - exactly-once: the sink's transactional steps, recorded through
#   WEIR_KAFKA_SINK_LOG (the mock does not enforce transactions, so what a
#   consumer sees proves nothing), are checked run by run: a transaction
#   commits only after its pre-commit and only if its checkpoint completed
#   (the next run restores that checkpoint or a later one); at restart
#   every pre-committed transaction the restored checkpoint covers is
#   committed, every transaction opened after it is aborted; at the end
#   none is left open, and every id is in the topic.
# WEIR_KAFKA_CRASH_SEED replays a kill schedule; WEIR_KAFKA_CRASH_KILLS
# (at-least-once, default 12: at least 10 must land before the job ends),
# WEIR_KAFKA_CRASH_KILLS_TXN (upsert, default 4), WEIR_KAFKA_CRASH_KILLS_EO
# (exactly-once, default 3) and
# WEIR_KAFKA_CRASH_ROWS change the size (more kills need more rows:
# about 1000 per kill).
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
SEED=${WEIR_KAFKA_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
KILLS=${WEIR_KAFKA_CRASH_KILLS:-12}         # at-least-once
KILLS_TXN=${WEIR_KAFKA_CRASH_KILLS_TXN:-4}  # upsert-kafka
KILLS_EO=${WEIR_KAFKA_CRASH_KILLS_EO:-3}    # exactly-once (slower to restart)
ROWS=${WEIR_KAFKA_CRASH_ROWS:-16000}
RATE=${WEIR_KAFKA_CRASH_RATE:-1600} # rows/s per subtask: 16000 rows take about 5 s
RANDOM=$SEED
echo "test_kafka_sink_crash: seed $SEED (WEIR_KAFKA_CRASH_SEED=$SEED replays it), $ROWS rows, $KILLS kills (at-least-once), $KILLS_TXN (upsert), $KILLS_EO (exactly-once)"
[ -x "$MOCK" ] || { echo "SKIP: no weir-kafka-mock (built without librdkafka)"; exit 0; }
command -v kcat > /dev/null || { echo "FAIL: kcat is not installed (scripts/install-deps.sh)"; exit 1; }
T=$(mktemp -d /tmp/weir-kafka-crash-XXXXXX)
MOCK_PID=
JOB_PID=
cleanup() {
    [ -n "$JOB_PID" ] && kill -9 "$JOB_PID" 2> /dev/null
    [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2> /dev/null
    wait 2> /dev/null
    [ -n "${WEIR_KAFKA_CRASH_KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -5 log; exit 1; }

"$MOCK" -f bootstrap alo:2 up:2 up_ref:2 eo:2 > mock.log 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s bootstrap ] && break; sleep 0.1; done
[ -s bootstrap ] || fail "the mock did not start"
BS=$(cat bootstrap)
consume() { kcat -b "$BS" -C -t "$1" -e -q -Z -f "${2:-%k|%s\n}" 2> /dev/null; }

gen() { echo "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '$1', 'rows-per-second' = '$RATE');"; }
K="'properties.bootstrap.servers' = '$BS'"
# job NAME TOPIC GUARANTEE [ROWS]: the job file NAME.sql
job() {
    local GEN
    GEN=$(gen "${4:-$ROWS}")
    case $1 in
    alo|eo) cat > "$1.sql" <<EOF
$GEN
CREATE TABLE o (id BIGINT, k BIGINT) WITH ('connector' = 'kafka', $K, 'topic' = '$2', 'format' = 'csv',
  'sink.delivery-guarantee' = '$3', 'sink.transactional-id-prefix' = 'weir-test-$1');
INSERT INTO o SELECT id, id % 97 FROM gen;
EOF
    ;;
    up) cat > "$1.sql" <<EOF
$GEN
CREATE TABLE o (k BIGINT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', $K,
  'topic' = '$2', 'key.format' = 'json', 'value.format' = 'json', 'sink.delivery-guarantee' = '$3');
INSERT INTO o SELECT id % 97, COUNT(*), SUM(id) FROM gen GROUP BY id % 97;
EOF
    ;;
    esac
}
CK=(-D execution.checkpointing.interval=100ms -D parallelism.default=2)

# kill_loop NAME N MIN SPAN: runs NAME.sql with checkpoints in NAME.ck,
# killing it N times at random moments (MIN + [0, SPAN) ms after its
# start), then lets it finish. Run i's stderr is
# NAME.err.i; "run i" lines separate the runs in the transaction log.
kill_loop() {
    local name=$1 kills=$2 min=$3 span=$4 i=0 killed=0 t0=$SECONDS
    while [ $killed -lt "$kills" ]; do
        echo "run $i" >> txn.log
        "$WEIR" run "$name.sql" "${CK[@]}" -D state.checkpoints.dir="$name.ck" > /dev/null 2> "$name.err.$i" &
        JOB_PID=$!
        local delay=$((min + RANDOM % span))
        local waited=0
        while [ $waited -lt $delay ] && kill -0 "$JOB_PID" 2> /dev/null; do sleep 0.05; waited=$((waited + 50)); done
        local landed=0
        kill -9 "$JOB_PID" 2> /dev/null && landed=1
        wait "$JOB_PID" 2> /dev/null
        JOB_PID=
        i=$((i + 1))
        [ $landed = 1 ] || break # the job ended before the kill
        killed=$((killed + 1))
    done
    echo "run $i" >> txn.log
    "$WEIR" run "$name.sql" "${CK[@]}" -D state.checkpoints.dir="$name.ck" > /dev/null 2> "$name.err.$i" ||
        { cat "$name.err.$i"; fail "$name: the final run failed"; }
    echo "$i" > "$name.runs"
    echo "  $name: $killed kills, $((SECONDS - t0)) s"
    # at-least-once: every kill must land (10 or more in CI); the others
    # need most of theirs
    [ "$killed" -ge $([ "$name" = alo ] && echo "$kills" || echo $(((kills + 1) / 2))) ] || { for f in "$name".err.*; do tail -n 3 "$f"; done;
        fail "$name: only $killed of $kills kills landed before the job ended (WEIR_KAFKA_CRASH_ROWS=$((2 * ROWS)) makes it longer)"; }
}

# ---- at-least-once ----
# twice the rows: enough for every kill to land before the end
job alo alo at-least-once $((2 * ROWS))
kill_loop alo "$KILLS" 100 400
consume alo '%s\n' | cut -d, -f1 | sort -n > alo.ids
python3 - alo.ids $((2 * ROWS)) <<'EOF' || fail "at-least-once: ids missing"
import sys, collections
c = collections.Counter(int(l) for l in open(sys.argv[1]))
n = int(sys.argv[2])
missing = [i for i in range(1, n + 1) if c[i] == 0]
extra = [i for i in c if i < 1 or i > n]
print('  at-least-once: %d messages, %d ids, %d duplicates, %d missing' %
      (sum(c.values()), len(c), sum(c.values()) - len(c), len(missing)))
sys.exit(1 if missing or extra else 0)
EOF

# ---- upsert-kafka ----
job up up_ref at-least-once
"$WEIR" run up.sql > /dev/null 2> log || fail "upsert reference run failed"
job up up at-least-once
kill_loop up "$KILLS_TXN" 150 450
compacted() { consume "$1" | python3 -c '
import sys
last = {}
for l in sys.stdin:
    k, v = l.rstrip("\n").split("|", 1)
    last[k] = v
for k in sorted(last): print(k, last[k])'; }
compacted up_ref > up_ref.txt
compacted up > up.txt
[ "$(wc -l < up_ref.txt)" = 97 ] || fail "upsert reference: $(wc -l < up_ref.txt) keys"
cmp -s up_ref.txt up.txt || { diff up_ref.txt up.txt | head; fail "upsert: the compacted view differs from the uninterrupted run's"; }
echo "  upsert-kafka: the compacted view equals the uninterrupted run's"

# ---- exactly-once ----
rm -f txn.log
job eo eo exactly-once $((2 * ROWS))
export WEIR_KAFKA_SINK_LOG=$T/txn.log
# a transaction per checkpoint: the first commits about 1 s after the start
kill_loop eo "$KILLS_EO" 600 800
unset WEIR_KAFKA_SINK_LOG
for ((i = 0; i <= $(cat eo.runs); i++)); do
    r=$(sed -n 's/.*restoring from checkpoint chk-\([0-9]*\).*/\1/p' "eo.err.$i" | head -1)
    echo "${r:-0}"
done > eo.restored
consume eo '%s\n' | cut -d, -f1 | sort -n > eo.ids
python3 - txn.log eo.restored eo.ids $((2 * ROWS)) <<'EOF' || fail "exactly-once: see above (WEIR_KAFKA_CRASH_SEED=$SEED)"
import sys
runs, cur = [], None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'run':
        cur = []
        runs.append(cur)
    else:
        cur.append((f[0], f[1], int(f[2]), int(f[3])))
restored = [int(l) for l in open(sys.argv[2])]
assert len(runs) == len(restored), (len(runs), len(restored))
errors = []
def err(*a):
    errors.append(' '.join(str(x) for x in a))
state = {}          # tid -> 'open' | 'pre' | 'done'
ckpt_of = {}
commits = 0
for i, ev in enumerate(runs):
    # what run i does first: recover and abort what run i-1 left
    # A run killed before its sink subtask restored (no event of that
    # subtask yet) leaves that subtask's lingering transactions to the
    # next run; a subtask that began a transaction, and the last run (it
    # ends cleanly), must have dealt with all of its own first.
    R = restored[i]
    last = i == len(runs) - 1
    def subtask_of(tid):
        return tid.rsplit('-', 2)[-2]
    began = set(subtask_of(t) for (e, t, _, _) in ev if e == 'begin')
    for tid, st in state.items():
        if st == 'done':
            continue
        c = ckpt_of[tid]
        seen = [e for (e, t, _, _) in ev if t == tid]
        if not seen and not last and subtask_of(tid) not in began:
            continue   # still lingering: the next run deals with it
        if st == 'pre' and c <= R:
            if not any(e in ('recover-commit', 'recover-skip') for e in seen):
                err('run', i, 'restored chk', R, 'but did not commit', tid, 'pre-committed at', c)
        elif not seen or seen[0] != 'abort':
            if c > R or st == 'open':
                err('run', i, 'restored chk', R, 'and did not abort', tid, st, 'first', seen[:1])
        state[tid] = 'done'   # checked above: recovered or aborted
    for (e, tid, c, n) in ev:
        if e == 'begin':
            state[tid] = 'open'
            ckpt_of[tid] = c
        elif e == 'precommit':
            if state.get(tid) != 'open':
                err('run', i, 'pre-committed', tid, 'which is not open')
            state[tid] = 'pre'
            ckpt_of[tid] = c
        elif e == 'commit':
            commits += 1
            if state.get(tid) != 'pre':
                err('run', i, 'committed', tid, 'before its pre-commit')
            state[tid] = 'done'
            # committed only after checkpoint c completed: a later restore
            # starts from c or a newer checkpoint
            if i + 1 < len(runs) and restored[i + 1] < c:
                err('run', i, 'committed', tid, 'of chk', c, 'but the next run restored chk', restored[i + 1])
        elif e == 'recover-commit' or e == 'recover-skip':
            state[tid] = 'done'
            ckpt_of.setdefault(tid, c)
        elif e == 'abort':
            pass
left = [t for t, st in state.items() if st != 'done']
if left:
    err('left open at the end:', left)
ids = set(int(l) for l in open(sys.argv[3]))
n = int(sys.argv[4])
missing = [i for i in range(1, n + 1) if i not in ids]
if missing:
    err(len(missing), 'ids missing, e.g.', missing[:5])
print('  exactly-once: %d runs, %d commits, %d recovered, %d aborted at restart' % (
    len(runs), commits, sum(1 for r in runs for e in r if e[0].startswith('recover')),
    sum(1 for r in runs for e in r if e[0] == 'abort')))
for e in errors[:20]:
    print('   ', e)
sys.exit(1 if errors else 0)
EOF
echo "test_kafka_sink_crash: PASS"
