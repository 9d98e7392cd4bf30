#!/usr/bin/env bash
# tests/test_final_checkpoint_slow.sh WEIR SOURCE_DIR - a final checkpoint
# whose snapshots take longer than the coordinator's stall time (10 s; made
# 1 ms here through WEIR_TEST_FINAL_STALL_MS, as a loaded machine and a
# large state make it) is waited for, not given up and taken again: it was
# given up at the first look after the stall time, again and again, so the
# job never ended while each snapshot took longer than a look (10 ms).
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat > job.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ck';
SET 'execution.checkpointing.interval' = '10 min';
SET 'parallelism.default' = '2';
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '300000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '300000');
CREATE TABLE o (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id, COUNT(*) FROM g GROUP BY id;
SQL
pass=0 fail=0
for r in 1 2 3; do
  rm -rf ck
  WEIR_TEST_FINAL_STALL_MS=1 timeout -k 5 60 "$weir" run job.sql -D rest.enabled=false > /dev/null 2> log; rc=$?
  given_up=$(grep -c 'given up at the end' log)
  if [ $rc -eq 0 ] && [ "$given_up" -eq 0 ] && grep -q 'checkpoints: 1 completed, 0 failed, last chk-1 ' log; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL run $r: exit $rc, the final checkpoint given up $given_up times"; grep 'checkpoints:' log | tail -2
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
