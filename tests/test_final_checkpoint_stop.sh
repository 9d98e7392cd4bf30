#!/usr/bin/env bash
# tests/test_final_checkpoint_stop.sh WEIR SOURCE_DIR - a job whose final
# checkpoint cannot be written (its checkpoint folder is replaced by a file
# once the job runs, which reads for 3 s: every checkpoint fails with an
# I/O error, and the
# final one is tried again and again) stops on SIGTERM: it retried without
# end and ran on after the signal. It ends within a bound, exit 143,
# saying that it stops without a final checkpoint and that nothing was
# committed.
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat > job.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ck';
SET 'execution.checkpointing.interval' = '10 min';
SET 'parallelism.default' = '2';
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3000', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000');
CREATE TABLE o (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id, COUNT(*) FROM g GROUP BY id;
SQL
fail() { echo "FAIL: $*"; grep -a 'checkpoint\|SIGTERM\|stop' log | tail -5; exit 1; }
"$weir" run job.sql -D rest.enabled=false > /dev/null 2> log &
pid=$!
for ((i = 0; i < 2000; i++)); do [ -d ck ] && break; sleep 0.01; done
[ -d ck ] || fail "no checkpoint folder"
rm -rf ck && echo "not a folder" > ck
# the first checkpoint is 10 min away: a failed one is a final one
for ((i = 0; i < 3000; i++)); do grep -aq 'checkpoint [0-9]* failed' log && break; sleep 0.01; done
grep -aq 'checkpoint [0-9]* failed' log || fail "no final checkpoint failed"
kill -TERM "$pid"
for ((i = 0; i < 3000; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.01; done
if kill -0 "$pid" 2> /dev/null; then
    kill -KILL "$pid"
    wait "$pid"
    fail "still running 30 s after SIGTERM"
fi
wait "$pid"
rc=$?
[ $rc -eq 143 ] || fail "exit $rc, expected 143"
grep -aq 'its final checkpoint failed 3 times .*: it stops without one' log || fail "the give-up is not said"
grep -aq 'stopped at once (SIGTERM) before any checkpoint completed: nothing was committed' log ||
    fail "the stop does not say that nothing was committed"
echo "test_final_checkpoint_stop: ok"
