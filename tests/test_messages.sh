#!/usr/bin/env bash
# What weir says about a script it runs anyway or refuses to run: a SET of
# a configuration key weir does not read warns with the nearest key it
# does; a checkpoint folder weir cannot write says why when the job starts.
# (Plan-time refusals are golden cases: tests/sql/err_*.)
# Usage: test_messages.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
pass=0
fail=0
skipped=0
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
cd "$work" || exit 1

# ---- unknown SET keys
cat >set.sql <<'SQL'
SET 'paralelism.default' = '2';
SET 'parallelism.default' = '1';
SET 'table.exec.mini-batch.size' = '100';
CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
SQL
"$weir" run set.sql -D weir.bach-size=4 >out 2>err; rc=$?
check "unknown keys do not stop the job" test $rc -eq 0
check "a misspelt key warns at the key with the nearest one" \
  grep -qxF "set.sql:1:5: warning: SET 'paralelism.default': unknown configuration key, ignored (did you mean 'parallelism.default'?)" err
check "a key far from every known one warns without a suggestion" \
  grep -qxF "set.sql:3:5: warning: SET 'table.exec.mini-batch.size': unknown configuration key, ignored" err
check "-D keys are checked too" \
  grep -qxF "set.sql: warning: -D weir.bach-size: unknown configuration key, ignored (did you mean 'weir.batch-size'?)" err
check "known keys draw no warning" test "$(grep -c warning err)" -eq 3
"$weir" explain set.sql >out 2>err
check "explain warns too" grep -qF "set.sql:1:5: warning: SET 'paralelism.default'" err

# ---- a checkpoint folder that cannot be written
job() { # checkpoint folder -> ck.sql
  cat >ck.sql <<SQL
SET 'state.checkpoints.dir' = '$1';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
SQL
}
touch afile
job afile/ck
timeout 60 "$weir" run ck.sql >out 2>err; rc=$?
check "a folder under a file: exit 4" test $rc -eq 4
check "a folder under a file: says why" grep -qF "afile/ck: cannot write checkpoints to this folder: Not a directory" err
mkdir ro
chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
  job ro
  timeout 60 "$weir" run ck.sql >out 2>err; rc=$?
  check "a read-only folder: exit 4" test $rc -eq 4
  check "a read-only folder: says so" grep -qF "ro: cannot write checkpoints to this folder: Permission denied" err
  job ro/ck
  timeout 60 "$weir" run ck.sql >out 2>err; rc=$?
  check "a folder under a read-only one: says so" grep -qF "ro/ck: cannot write checkpoints to this folder: Permission denied" err
else
  skipped=$((skipped + 1)) # root writes into a mode 555 folder
fi
job ok
timeout 60 "$weir" run ck.sql >out 2>err; rc=$?
check "a writable folder: the job runs" test $rc -eq 0
check "a writable folder: no probe file left" test -z "$(find ok -name '.weir-probe-*')"

echo "$pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
