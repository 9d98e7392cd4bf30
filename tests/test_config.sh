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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
