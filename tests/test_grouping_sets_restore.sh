#!/usr/bin/env bash
# tests/test_grouping_sets_restore.sh WEIR - a GROUP BY ROLLUP job (its ()
# set is a global aggregation, whose rows a union takes on its first
# subtask at parallelism 2 or more) is stopped with a savepoint and
# restored at parallelism 4, then 1, then 2: the stateful operators of the
# plan are the same at every parallelism, so each savepoint fits the next
# run. The committed changelog, folded, must equal the result over all the
# rows, computed here by an independent model (python). (Found by
# tests/restore_diff.py.)
set -u
WEIR=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/weir-gs-restore.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { echo "test_grouping_sets_restore: FAIL: $*" >&2; exit 1; }
mkdir in
cat > job.sql <<'EOF2'
CREATE TABLE t (v BIGINT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '20ms');
CREATE TABLE q1 (m BIGINT, mn STRING, sd BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');
INSERT INTO q1 SELECT MOD(v, 3), MIN(s), SUM(DISTINCT v) FROM t GROUP BY ROLLUP(MOD(v, 3));
EOF2
CK=(-D state.checkpoints.dir=ckpt -D state.savepoints.dir=sp -D execution.checkpointing.interval=50ms)
# four files of 25 rows per step, one split each: several subtasks read;
# each step brings new values and a smaller MIN(s), so every group changes
add() {
    for j in 0 1 2 3; do
        awk -v b=$(( $1 * 100 + j * 25 )) -v st=$1 'BEGIN { for (i = b; i < b + 25; i++) printf "%d,s%d%02d\n", (i * 7) % 41 + 50 * st, 9 - st, (i * 13) % 17 }' > in/.f$1-$j
        mv in/.f$1-$j in/f$1-$j.csv
    done
}
# the committed changelog folded into a sorted table
fold() {
    cat out/part-* 2> /dev/null | python3 -c '
import collections, json, sys
t = collections.Counter()
for line in sys.stdin:
    e = json.loads(line)
    for side, d in (("before", -1), ("after", 1)):
        if e[side] is not None:
            t[json.dumps(e[side], sort_keys=True)] += d
for r, n in sorted((r, n) for r, n in t.items() if n):
    print(r if n == 1 else "%s x%d" % (r, n))'
}
# the result over every row of in/: one row per MOD(v, 3), one for ()
model() {
    cat in/*.csv | python3 -c '
import json, sys
rows = [(int(v), s) for v, s in (l.strip().split(",") for l in sys.stdin)]
groups = [(m, [r for r in rows if r[0] % 3 == m]) for m in sorted({v % 3 for v, _ in rows})]
out = [{"m": m, "mn": min(s for _, s in g), "sd": sum({v for v, _ in g})} for m, g in groups]
out.append({"m": None, "mn": min(s for _, s in rows), "sd": sum({v for v, _ in rows})})
print("\n".join(sorted(json.dumps(r, sort_keys=True) for r in out)))'
}
# waits until the folded output equals the model, at most 120 s
await() {
    model > want.txt
    local end=$(( SECONDS + 120 ))
    while [ $SECONDS -lt $end ]; do
        fold > got.txt
        cmp -s got.txt want.txt && return 0
        kill -0 $pid 2> /dev/null || break
        sleep 0.2
    done
    fail "$1: the committed output is not the result over all rows: $(diff want.txt got.txt | head -10 | tr '\n' ' ')"
}
sp=
step=0
for p in 4 1 2; do
    add $step
    "$WEIR" run job.sql "${CK[@]}" -D parallelism.default=$p ${sp:+--from "$sp"} 2> "run$step.log" > /dev/null &
    pid=$!
    await "parallelism $p"
    [ -z "$sp" ] || grep -q "restoring from savepoint" "run$step.log" ||
        fail "parallelism $p did not restore the savepoint: $(tail -3 "run$step.log")"
    sp=$("$WEIR" savepoint $pid --stop | tail -1)
    wait $pid || fail "stop with a savepoint at parallelism $p exited $?: $(tail -3 "run$step.log")"
    pid=
    [ -d "$sp" ] || fail "no savepoint at parallelism $p: $sp"
    step=$(( step + 1 ))
done
grep -q "does not fit" run*.log && fail "a savepoint was refused"
echo "test_grouping_sets_restore: ok (parallelism 4 -> 1 -> 2, $(wc -l < want.txt) result rows)"
