#!/usr/bin/env bash
# weir run --config FILE: YAML as Flink's config.yaml (nested maps are dotted
# keys), precedence file < SET < -D, errors and warnings at file:line:column.
# Usage: test_config.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEIR_REGISTRY_DIR=$work/reg
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
cat >"$work/job.sql" <<'SQL'
CREATE TABLE g (id BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'number-of-rows' = '100', 'fields.ms.kind' = 'sequence',
      'fields.ms.start' = '0', 'fields.ms.end' = '99000');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
SQL
cat >"$work/conf.yaml" <<'YAML'
# nested maps flatten to dotted keys
parallelism:
  default: 3
execution:
  checkpointing:
    interval: 50ms
pipeline.name: from-the-file
log: {format: json}
jobmanager.memory.process.size: 1600m
YAML
"$weir" explain "$work/job.sql" --config "$work/conf.yaml" >"$work/out" 2>"$work/err"; rc=$?
check "explain with --config exits 0" test $rc -eq 0
check "a nested key applies (parallelism.default: 3)" grep -q "parallelism 3" "$work/out"
check "a key weir does not read is a warning at its line and column" \
  grep -q "conf.yaml:9:1: warning: key 'jobmanager.memory.process.size': unknown configuration key" "$work/err"
# The script's SET overrides the file, -D overrides both.
{ echo "SET 'parallelism.default' = '2';"; cat "$work/job.sql"; } >"$work/set.sql"
"$weir" explain "$work/set.sql" --config "$work/conf.yaml" >"$work/out" 2>/dev/null
check "SET overrides the file" grep -q "parallelism 2" "$work/out"
"$weir" explain "$work/set.sql" --config "$work/conf.yaml" -D parallelism.default=4 >"$work/out" 2>/dev/null
check "-D overrides SET and the file" grep -q "parallelism 4" "$work/out"
# A run takes every key from the file: checkpoints, log format, job name.
"$weir" run "$work/job.sql" --config "$work/conf.yaml" -D "state.checkpoints.dir=$work/ck" >/dev/null 2>"$work/err"; rc=$?
check "run with --config exits 0" test $rc -eq 0
check "log.format from the file: JSON lines" python3 -c '
import json, sys
ls = open(sys.argv[1]).read().splitlines()
assert ls and all(json.loads(l)["level"] for l in ls)' "$work/err"
check "checkpoints were enabled" test -d "$work/ck"
# A later line wins; a list is one value (items joined with ';').
printf 'parallelism:\n  default: 3\nparallelism.default: 5\nweir.late-records.tablex: [a, b]\n' >"$work/later.yaml"
"$weir" explain "$work/job.sql" --config "$work/later.yaml" >"$work/out" 2>"$work/err"
check "a later line wins" grep -q "parallelism 5" "$work/out"
check "a list value is read (its key is checked)" grep -q "later.yaml:4:1: warning: key 'weir.late-records.tablex'.*did you mean 'weir.late-records.table'" "$work/err"
# Errors: syntax, a top level that is not a map, a missing file.
printf 'execution:\n  checkpointing:\n    interval: 10s\n   mode: x\n' >"$work/bad.yaml"
"$weir" run "$work/job.sql" --config "$work/bad.yaml" >/dev/null 2>"$work/err"; rc=$?
check "a YAML syntax error exits 3" test $rc -eq 3
check "a YAML syntax error names file, line and column" grep -Eq "bad.yaml:4:[0-9]+: error: " "$work/err"
printf -- '- a\n- b\n' >"$work/seq.yaml"
"$weir" run "$work/job.sql" --config "$work/seq.yaml" >/dev/null 2>"$work/err"; rc=$?
check "a top-level list is refused" test $rc -eq 3
check "a top-level list: the message says where" grep -q "seq.yaml:1:1: error: the top level must be a map" "$work/err"
printf 'a: *x\n' >"$work/alias.yaml"
"$weir" run "$work/job.sql" --config "$work/alias.yaml" >/dev/null 2>"$work/err"; rc=$?
check "an alias is refused with its place" grep -q "alias.yaml:1:" "$work/err"
"$weir" run "$work/job.sql" --config "$work/none.yaml" >/dev/null 2>"$work/err"; rc=$?
check "a missing file exits 4" test $rc -eq 4
check "a missing file is named" grep -q "none.yaml: No such file" "$work/err"
"$weir" run "$work/job.sql" --config >/dev/null 2>&1; rc=$?
check "--config without a file exits 2" test $rc -eq 2

# Randomized, against PyYAML's pure-Python parser: random nested maps (block
# and flow style, lists, quoting, comments); every key weir does not read is
# a warning with its flattened name and the line and column of its last part.
seed=${WEIR_CONFIG_SEED:-${WEIR_SEED:-$RANDOM}}
rounds=${WEIR_CONFIG_ROUNDS:-8}
echo "seed $seed (WEIR_CONFIG_SEED=$seed replays it), $rounds rounds"
for r in $(seq 1 "$rounds"); do
  python3 - "$seed" "$r" "$work/r.yaml" "$work/want" <<'PY'
import random, sys, yaml
seed, r, path, want = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rnd = random.Random(seed * 1000 + r)
words = ["alpha", "beta", "gamma", "x1", "deep", "k-9", "w_z"]
def name():
    return rnd.choice(words) + str(rnd.randint(0, 99))
def scalar():
    return rnd.choice(["1", "10s", "'quoted value'", '"dq"', "true", "a b c"])
def block(depth, ind):
    out = []
    for _ in range(rnd.randint(1, 4)):
        k = name()
        if rnd.random() < 0.15:
            out.append(" " * ind + "# a comment")
        c = rnd.random()
        if depth < 3 and c < 0.35:
            out.append(" " * ind + k + ":")
            out += block(depth + 1, ind + 2)
        elif c < 0.5:
            out.append(" " * ind + k + ": {" + ", ".join(f"{name()}: {scalar()}" for _ in range(rnd.randint(1, 3))) + "}")
        elif c < 0.6:
            out.append(" " * ind + k + ": [" + ", ".join(scalar() for _ in range(rnd.randint(1, 3))) + "]")
        else:
            out.append(" " * ind + k + ": " + scalar())
    return out
text = "\n".join(block(0, 0)) + "\n"
open(path, "w").write(text)
# The oracle: flatten the composed node tree; a later duplicate key wins.
flat = {}
def walk(node, prefix):
    for k, v in node.value:
        key = prefix + k.value
        if isinstance(v, yaml.MappingNode):
            walk(v, key + ".")
        else:
            flat[key] = (k.start_mark.line + 1, k.start_mark.column + 1)
walk(yaml.compose(text, Loader=yaml.SafeLoader), "")
with open(want, "w") as f:
    for key, (l, c) in sorted(flat.items()):
        f.write(f"{l}:{c}:{key}\n")
PY
  "$weir" explain "$work/job.sql" --config "$work/r.yaml" >/dev/null 2>"$work/err"; rc=$?
  sed -n "s/^.*r\.yaml:\([0-9]*\):\([0-9]*\): warning: key '\([^']*\)'.*/\1:\2:\3/p" "$work/err" | sort >"$work/got"
  sort "$work/want" -o "$work/want"
  if [ $rc -eq 0 ] && cmp -s "$work/got" "$work/want"; then
    pass=$((pass + 1))
  else
    echo "FAIL round $r (seed $seed): keys differ from PyYAML's"; diff "$work/want" "$work/got" | head -5
    fail=$((fail + 1))
  fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
