#!/usr/bin/env bash
# tests/test_kafka_changelog.sh WEIR SOURCE_DIR - Kafka topics read as
# changelogs, against librdkafka's mock cluster over TCP:
# - upsert-kafka: random upserts, repeated values and tombstones (for known
#   and unknown keys) over several partitions (a key always in the same
#   partition); 'debezium-json' on 'kafka': the same changes as Debezium
#   envelopes (c/r/u/d, with tombstones after deletes), half of the rounds
#   with the schema/payload wrapper.
#   Differential vs python3 (no code shared): the source's changelog itself
#   (per key, in order), SELECT k, SUM(v), COUNT(*) GROUP BY k and a
#   COUNT(*)/SUM(v) over the whole table, each materialized from weir's
#   printed changelog and compared with the compacted table.
# - kill -9 at random moments during an upsert-kafka -> GROUP BY ->
#   upsert-kafka job with checkpoints; the compacted output topic must
#   equal the oracle's (the source's per-key rows are checkpointed state:
#   a restore that forgot them would emit +I for known keys and double
#   count). Every message of a key must be in one partition (the job's and
#   the test's markers alike): the last value of a key is defined within a
#   partition only.
# - errors: no PRIMARY KEY, a PRIMARY KEY column that is not a column, a bad
#   envelope (located: partition and offset).
#
# WEIR_KAFKA_CL_SEED replays a run; WEIR_KAFKA_CL_ROUNDS (default 2),
# WEIR_KAFKA_CL_MSGS (default 3000) and WEIR_KAFKA_CL_KILLS (default 3) size it.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MOCK=$(dirname "$WEIR")/weir-kafka-mock
if [ ! -x "$MOCK" ] || ! command -v kcat > /dev/null; then
    echo "test_kafka_changelog: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
SEED=${WEIR_KAFKA_CL_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
ROUNDS=${WEIR_KAFKA_CL_ROUNDS:-2}
MSGS=${WEIR_KAFKA_CL_MSGS:-3000}
KILLS=${WEIR_KAFKA_CL_KILLS:-3}
RANDOM=$SEED
echo "test_kafka_changelog: seed $SEED (WEIR_KAFKA_CL_SEED=$SEED replays it), $ROUNDS rounds of $MSGS messages, $KILLS kills"
T=$(mktemp -d /tmp/weir-kafka-cl-XXXXXX)
cleanup() { [ -n "${MOCK_PID:-}" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

topics=(crash:3 crashout:2 bad:1)
for ((r = 0; r < ROUNDS; r++)); do
    p=$(( (SEED + r * 7) % 4 + 1 ))
    topics+=("u$r:$p" "d$r:$p")
done
"$MOCK" -f boot "${topics[@]}" > mock.log 2>&1 &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do [ -s boot ] && break; sleep 0.05; done
[ -s boot ] || fail "the mock cluster did not start"
B=$(cat boot)

# gen.py SEED PARTS MSGS DIR: DIR/u<P> ("key<TAB>json value", empty value =
# tombstone), DIR/d<P> (debezium envelopes; schema-include when DIR/wrap),
# DIR/changes (the expected changelog per key: "key|kind|v" lines in order),
# DIR/final (the compacted table: "key|v").
cat > gen.py <<'PY'
import json, random, sys, zlib
seed, parts, msgs, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rnd = random.Random(seed)
wrap = rnd.random() < 0.5
nkeys = rnd.randint(1, 60)
keys = ["k%d" % i for i in range(nkeys)] + ["ünï", "a b"]
part = lambda k: zlib.crc32(k.encode()) % parts
up = [[] for _ in range(parts)]
dbz = [[] for _ in range(parts)]
table, changes = {}, []
def env(before, after, op):
    e = {"before": before, "after": after, "op": op, "ts_ms": 1}
    if wrap:
        e = {"schema": {"type": "struct", "optional": False}, "payload": e}
    return json.dumps(e, ensure_ascii=False)
for _ in range(msgs):
    k = rnd.choice(keys)
    p = part(k)
    x = rnd.random()
    if x < 0.15:                                   # tombstone / delete
        up[p].append("%s\t" % k)
        if k in table:
            old = table.pop(k)
            changes.append((k, "-D", old))
            dbz[p].append(env({"k": k, "v": old}, None, "d"))
            dbz[p].append(None)                    # Debezium's tombstone
    else:
        v = rnd.choice([rnd.randint(-50, 50), table.get(k, 0)])   # repeats too
        up[p].append("%s\t%s" % (k, json.dumps({"v": v})))
        if k not in table:
            changes.append((k, "+I", v))
            dbz[p].append(env(None, {"k": k, "v": v}, rnd.choice("cr")))
        elif table[k] != v:
            changes.append((k, "-U", table[k]))
            changes.append((k, "+U", v))
            dbz[p].append(env({"k": k, "v": table[k]}, {"k": k, "v": v}, "u"))
        table[k] = v
for p in range(parts):
    with open("%s/u%d" % (out, p), "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in up[p]))
    with open("%s/d%d" % (out, p), "w", encoding="utf-8") as f:
        f.write("".join((l if l is not None else "") + "\n" for l in dbz[p]))
with open(out + "/changes", "w", encoding="utf-8") as f:
    f.write("".join("%s|%s|%d\n" % c for c in changes))
with open(out + "/final", "w", encoding="utf-8") as f:
    f.write("".join("%s|%d\n" % (k, v) for k, v in sorted(table.items())))
if wrap:
    open(out + "/wrap", "w").write("1")
PY

# check.py DIR GOT_SRC GOT_AGG GOT_TOTAL: weir's printed changelogs against
# the oracle.
cat > check.py <<'PY'
import sys, re
d, got_src, got_agg, got_tot = sys.argv[1:5]
def rows(path):
    for line in open(path, encoding="utf-8"):
        line = re.sub(r"^\d+> ", "", line.rstrip("\n"))
        m = re.match(r"^([+-][IUD])\[(.*)\]$", line)
        assert m, "not a changelog row: %r" % line
        yield m.group(1), m.group(2).split(", ")
want = {}
for line in open(d + "/changes", encoding="utf-8"):
    k, kind, v = line.rstrip("\n").split("|")
    want.setdefault(k, []).append((kind, int(v)))
got = {}
for kind, (k, v) in rows(got_src):
    got.setdefault(k, []).append((kind, int(v)))
for k in set(want) | set(got):
    assert want.get(k) == got.get(k), "changelog of key %r: want %s, got %s" % (k, want.get(k, [])[:8], got.get(k, [])[:8])
final = {}
for line in open(d + "/final", encoding="utf-8"):
    k, v = line.rstrip("\n").split("|")
    final[k] = int(v)
def materialize(path, nkey):
    t = {}
    for kind, vals in rows(path):
        key, rest = tuple(vals[:nkey]), vals[nkey:]
        if kind in ("+I", "+U"):
            t[key] = rest
        else:
            assert t.get(key) == rest, "retraction of %s %s does not match %s" % (key, rest, t.get(key))
            del t[key]
    return t
agg = materialize(got_agg, 1)
assert agg == {(k,): [str(v), "1"] for k, v in final.items()}, "GROUP BY k differs: %s" % sorted(agg.items())[:5]
tot = materialize(got_tot, 0)
want_tot = [str(len(final)), str(sum(final.values())) if final else "null"]
assert tot == ({(): want_tot} if final else {}), "COUNT(*), SUM(v) over the table: want %s, got %s" % (want_tot, tot)
print("%d keys, %d changes" % (len(final), sum(len(v) for v in want.values())))
PY

produce() { # topic dir prefix parts [kcat args]
    local t=$1 dir=$2 pre=$3 parts=$4; shift 4
    for ((p = 0; p < parts; p++)); do
        [ -s "$dir/$pre$p" ] || continue
        kcat -P -b "$B" -t "$t" -p "$p" -Z "$@" < "$dir/$pre$p" || fail "kcat could not produce to $t"
    done
}
for ((r = 0; r < ROUNDS; r++)); do
    parts=$(( (SEED + r * 7) % 4 + 1 ))
    rm -rf round && mkdir round
    python3 gen.py "$((SEED * 10 + r))" "$parts" "$MSGS" round || fail "generator failed"
    produce "u$r" round u "$parts" -K $'\t'
    produce "d$r" round d "$parts"
    wrap=false; [ -f round/wrap ] && wrap=true
    for kind in upsert debezium; do
        if [ $kind = upsert ]; then
            SRC="CREATE TABLE src (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'u$r', 'properties.bootstrap.servers' = '$B',
  'scan.bounded.mode' = 'latest-offset', 'key.format' = 'raw',
  'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');"
        else
            SRC="CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'd$r',
  'properties.bootstrap.servers' = '$B', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'debezium-json',
  'debezium-json.schema-include' = '$wrap');"
        fi
        par=$(( RANDOM % 2 + 1 ))
        # one job, two sinks told apart by their print identifiers, at a
        # random parallelism; the global row in its own job at parallelism
        # 1 (at 2 the planner rebalances the single aggregate's changelog
        # through two Calc subtasks, which reorders it: a planner matter)
        cat > "round/$kind.sql" <<EOF
$SRC
CREATE TABLE o_src (k STRING, v BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'src');
CREATE TABLE o_agg (k STRING, s BIGINT, c BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'agg');
INSERT INTO o_src SELECT k, v FROM src;
INSERT INTO o_agg SELECT k, SUM(v), COUNT(*) FROM src GROUP BY k;
EOF
        printf "%s\n%s\n%s\n" "$SRC" "CREATE TABLE o_tot (c BIGINT, s BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'tot');" \
            "INSERT INTO o_tot SELECT COUNT(*), SUM(v) FROM src;" > "round/$kind-tot.sql"
        timeout 120 "$WEIR" run "round/$kind.sql" -D parallelism.default="$par" \
            > "round/$kind.out" 2> log || fail "round $r $kind: weir failed"
        timeout 120 "$WEIR" run "round/$kind-tot.sql" -D parallelism.default=1 \
            >> "round/$kind.out" 2> log || fail "round $r $kind (COUNT(*)): weir failed"
        for q in src agg tot; do
            grep -E "^$q(:[0-9]+)?> " "round/$kind.out" | sed -E 's/^[a-z]+(:[0-9]+)?> //' > "round/$kind-$q.out"
        done
        res=$(python3 check.py round "round/$kind-src.out" "round/$kind-agg.out" "round/$kind-tot.out" 2>&1) ||
            fail "round $r ($kind, $parts partitions, parallelism $par, schema-include $wrap): $res (seed $SEED)"
        echo "  round $r: $kind, $parts partitions, parallelism $par: $res: equal"
    done
done

# ---- kill -9 with checkpoints: upsert-kafka -> GROUP BY -> upsert-kafka ----
rm -rf round && mkdir round
python3 gen.py "$((SEED * 10 + 9))" 3 $((MSGS * 10)) round || fail "generator failed"
produce crash round u 3 -K $'\t'
cat > crash.sql <<EOF
CREATE TABLE src (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'crash', 'properties.bootstrap.servers' = '$B',
  'scan.bounded.mode' = 'latest-offset', 'key.format' = 'raw',
  'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE dst (k STRING, s BIGINT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'crashout', 'properties.bootstrap.servers' = '$B',
  'key.format' = 'raw', 'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY');
INSERT INTO dst SELECT k, SUM(v), COUNT(*) FROM src GROUP BY k;
EOF
CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=20ms -D parallelism.default=2)
start=$(date +%s%N)
"$WEIR" run crash.sql -D parallelism.default=2 > /dev/null 2> log || fail "the reference run failed"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
# compacted FILE: the table a compacted crashout ends with, "key|s,c" lines.
# Kafka orders messages within a partition only (and compacts each
# partition on its own), and kcat interleaves the partitions as its fetches
# return them, so "a key's last value" is only defined when all of the
# key's messages share a partition: a key found in two fails the test.
compacted() {
    kcat -b "$B" -C -t crashout -e -q -Z -f '%p|%k|%s\n' 2> /dev/null |
        awk -F'|' '{ if (($2 in part) && part[$2] != $1) split_keys[$2] = 1
                     part[$2] = $1; last[$2] = $3 }
                   END { for (k in split_keys) { print "key " k " has messages in two partitions" > "/dev/stderr"; bad = 1 }
                         if (bad) exit 1
                         for (k in last) if (last[k] != "NULL") print k "|" last[k] }' > "$1.raw" 2> split.txt ||
        fail "$(head -3 split.txt) (seed $SEED)"
    sort "$1.raw" > "$1"
}
awk -F'|' '{ print $1 "|" $2 ",1" }' round/final | sort > want.txt
compacted ref.txt
cmp -s want.txt ref.txt || { diff want.txt ref.txt | head -5; fail "the uninterrupted run differs from the oracle (seed $SEED)"; }
# The output topic keeps the reference run's messages: the killed runs'
# own must bring every key back to the same last value. Start over on a
# topic whose last values are wrong for every key, so a run that skipped a
# key's final change would show. The markers go where the sink writes the
# key (murmur2 of the key, as Kafka's Java client and weir's 'default'
# partitioner; kcat's own default is CRC32): in another partition a marker
# would not be before the job's later messages in any order Kafka defines.
awk -F'|' '{ print $1 "\t999,999" }' round/final |
    kcat -P -b "$B" -t crashout -K $'\t' -X partitioner=murmur2_random || fail "kcat"
max_delay=$(( ref_ms > 300 ? ref_ms : 300 ))
mid_resumes() { grep "restoring from checkpoint" log | grep -vc "nothing is left"; }
kills=0
# KILLS kills, and more (at most 3 * KILLS + 8 attempts) until a run resumed
# in the middle of the input at least once. A run that ends before its kill
# lands, with no mid-input resume yet, leaves only a final checkpoint: then
# start over from no checkpoint (the output topic keeps its messages; the
# next runs must still bring every key to its last value).
checkpoints() { find ckpt -name 'chk-*' 2> /dev/null | wc -l; }
for ((i = 1; i <= KILLS || (i <= 3 * KILLS + 8 && $(mid_resumes) == 0); i++)); do
    before=$(checkpoints)
    "$WEIR" run crash.sql "${CK[@]}" > /dev/null 2>> log &
    pid=$!
    # Odd attempts are killed just after a new checkpoint appears (a
    # bounded poll), so that the first restore resumes mid-input however
    # slow the machine is; even ones at a random moment.
    if ((i % 2 == 1)); then
        for ((w = 0; w < 400 && $(checkpoints) == before; w++)); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.01
        done
        sleep "0.0$(( RANDOM % 5 ))"
    else
        sleep "$(awk -v d="$(( RANDOM % (max_delay * 2 / 3) + 1 ))" 'BEGIN { printf "%.3f", d / 1000 }')"
    fi
    kill -9 "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
    st=$?
    if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -ne 0 ]; then fail "attempt $i exited $st"; fi
    [ $st -eq 0 ] && [ "$(mid_resumes)" -eq 0 ] && rm -rf ckpt
done
"$WEIR" run crash.sql "${CK[@]}" > /dev/null 2>> log || fail "the last run failed"
compacted got.txt
cmp -s want.txt got.txt || { diff want.txt got.txt | head -5; fail "after $kills kills the compacted output differs (seed $SEED)"; }
[ "$(mid_resumes)" -gt 0 ] || fail "no run resumed from a checkpoint in the middle of the input"
echo "  $kills kills, $(mid_resumes) resumed mid-input: the compacted output equals the oracle's ($(wc -l < want.txt) keys)"

# ---- errors ----
expect_err() { # sql pattern what
    printf '%s\n' "$1" > e.sql
    "$WEIR" run e.sql > /dev/null 2> e.log && fail "$3: the job ran"
    grep -q -- "$2" e.log || fail "$3: $(cat e.log)"
}
expect_err "CREATE TABLE s (k STRING, v BIGINT) WITH ('connector' = 'upsert-kafka', 'topic' = 'crash',
  'properties.bootstrap.servers' = '$B', 'key.format' = 'raw', 'value.format' = 'json');
SELECT * FROM s;" "e.sql:1:14: error: table 's': connector 'upsert-kafka' needs a PRIMARY KEY" "no primary key"
expect_err "CREATE TABLE s (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = 'crash', 'properties.bootstrap.servers' = '$B', 'value.format' = 'json');
SELECT * FROM s;" "needs option 'key.format'" "no key format"
expect_err "CREATE TABLE s (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = 'crash', 'properties.bootstrap.servers' = '$B', 'key.format' = 'raw', 'value.format' = 'json',
  'scan.startup.mode' = 'latest-offset');
SELECT * FROM s;" "e.sql:3:3: error: .*'scan.startup.mode' is not an option of 'upsert-kafka'" "startup mode"
printf '%s\n' '{"before":null,"after":{"k":"a","v":1},"op":"c"}' '{"before":null,"after":{"k":"a","v":2},"op":"u"}' |
    kcat -P -b "$B" -t bad || fail "kcat"
expect_err "CREATE TABLE s (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'bad',
  'properties.bootstrap.servers' = '$B', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'debezium-json');
SELECT * FROM s;" 'bad-0:1: error: value of the message: expected a "before" row image for op "u", found null' "bad envelope"
echo "test_kafka_changelog: passed"
