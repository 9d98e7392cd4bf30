#!/usr/bin/env bash
# tests/test_final_checkpoint_stop.sh WEIR SOURCE_DIR - a job whose final
# checkpoint cannot be written (its checkpoint folder is replaced by a file
# once the job runs, which reads for 3 s: every checkpoint fails with an
# I/O error, and the
# final one is tried again and again) stops on SIGTERM: it retried without
# end and ran on after the signal. It ends within a bound, exit 143,
# saying that it stops without a final checkpoint and that nothing was
# committed. The same job stopped with a savepoint (the signal `weir
# savepoint --stop` sends) ends too, exit 1 (it exited 0 as if stopped
# well), saying that no savepoint was written. A file sink's files stay
# hidden after such a stop (its final checkpoints pre-committed them, and
# none completed) and the next run removes them, committing its own rows
# only (docs/operations.md says why the stop cannot).
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat > job.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ck';
SET 'execution.checkpointing.interval' = '10 min';
SET 'state.savepoints.dir' = 'sp';
SET 'parallelism.default' = '2';
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3000', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000');
CREATE TABLE o (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id, COUNT(*) FROM g GROUP BY id;
SQL
sed -e "s/'connector' = 'blackhole'/'connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json'/" \
    job.sql > job_files.sql
job=job.sql
fail() { echo "FAIL ($sig): $*"; grep -a 'checkpoint\|SIGTERM\|stop' log | tail -5; exit 1; }
# stop_case SIGNAL EXIT PATTERN: the job above, its folder spoilt, stopped by
# SIGNAL once a final checkpoint failed; it must end with EXIT, its log
# holding the give-up and PATTERN
stop_case() {
    sig=$1
    rm -rf ck log
    "$weir" run "$job" -D rest.enabled=false > /dev/null 2> log &
    pid=$!
    # once the job holds the folder's lock: spoilt before that, the job
    # fails at its start ("cannot create the lock file"), not at a checkpoint
    for ((i = 0; i < 2000; i++)); do [ -f ck/.weir.lock ] && break; sleep 0.01; done
    [ -f ck/.weir.lock ] || fail "no checkpoint folder"
    rm -rf ck && echo "not a folder" > ck
    # the first checkpoint is 10 min away: a failed one is a final one
    for ((i = 0; i < 3000; i++)); do grep -aq 'checkpoint [0-9]* failed' log && break; sleep 0.01; done
    grep -aq 'checkpoint [0-9]* failed' log || fail "no final checkpoint failed"
    kill -s "$sig" "$pid"
    for ((i = 0; i < 3000; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.01; done
    if kill -0 "$pid" 2> /dev/null; then
        kill -KILL "$pid"
        wait "$pid"
        fail "still running 30 s after the signal"
    fi
    wait "$pid"
    rc=$?
    [ $rc -eq "$2" ] || fail "exit $rc, expected $2"
    grep -aq 'its final checkpoint failed 3 times .*: it stops without one' log || fail "the give-up is not said"
    grep -aq "$3" log || fail "the log does not say: $3"
}
stop_case TERM 143 'stopped at once (SIGTERM) before any checkpoint completed: nothing was committed'
stop_case $(($(kill -l SIGRTMIN) + 1)) 1 'the job stopped without its final checkpoint .*: no savepoint was written'
job=job_files.sql
stop_case TERM 143 'stopped at once (SIGTERM) before any checkpoint completed: nothing was committed'
hidden=$(find out -name '.part-*' | wc -l)
[ "$hidden" -gt 0 ] && [ -z "$(find out -name 'part-*')" ] ||
    fail "after the give-up: $hidden hidden files, visible: $(find out -name 'part-*' | tr '\n' ' ')"
rm -f ck
"$weir" run job_files.sql -D rest.enabled=false > /dev/null 2> log || fail "the next run failed"
[ -z "$(find out -name '.part-*')" ] || fail "the next run left the hidden files: $(find out -name '.part-*' | tr '\n' ' ')"
rows=$(cat out/part-* | grep -c '"op":"c"')
[ "$rows" -eq 3000 ] || fail "the next run committed $rows rows, not 3000"
echo "test_final_checkpoint_stop: ok"
