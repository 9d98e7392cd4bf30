#!/usr/bin/env bash
# tests/test_final_checkpoint_empty.sh WEIR SOURCE_DIR - a job whose source
# has nothing to read (an empty folder) ends with one final checkpoint. Its
# subtasks are final-ready before the checkpoint coordinator has started;
# the coordinator must still know when every one was ready, or it gives the
# final checkpoint up again and again ("given up at the end of the job")
# until an acknowledgement wins the race (3 of 8 runs before the fix).
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir in
cat > job.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ck';
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE f (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id FROM f;
SQL
pass=0 fail=0
for r in 1 2 3 4 5 6 7 8; do
  rm -rf ck out
  "$weir" run job.sql -D rest.enabled=false > /dev/null 2> log; rc=$?
  given_up=$(grep -c 'given up at the end' log)
  if [ $rc -eq 0 ] && [ "$given_up" -eq 0 ] && grep -q 'checkpoints: 1 completed, 0 failed, last chk-1 ' log; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL run $r: exit $rc, the final checkpoint given up $given_up times"; grep 'checkpoints:' log
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
