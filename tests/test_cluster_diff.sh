#!/usr/bin/env bash
# tests/test_cluster_diff.sh WEIR SOURCE_DIR - randomized differential test
# of jobs run by several weir processes (docs/cluster.md):
# tests/cluster_diff.py draws jobs from the window (sql_diff.py) and
# changelog (changelog_diff.py) generators, runs each on 2 or 3 processes
# over librdkafka's mock cluster (repartition topics of 1 to 5 partitions,
# sometimes a late start, a third with checkpoints across the processes
# into exactly-once file sinks, half of those with processes killed and
# started again: one, or all at another parallelism, or all on another
# number of processes) and compares what the processes wrote together with the
# generator's oracle; a run of the job on one process over the mock
# cluster is compared too.
# Bounded: WEIR_CLUSTERDIFF_JOBS jobs (default 16; 4 under ASan), about two
# minutes. The seed is printed; WEIR_SEED=S replays a run,
# WEIR_CLUSTERDIFF_JOB=i one job of it. Failing jobs (with a repro.sh) are
# written under WEIR_CLUSTERDIFF_OUT (default ./cluster_diff_failures).
# WEIR_CLUSTERDIFF_RESCALE=1 makes every job it can a rescaled one (to check
# a change to the rescale's restore).
set -u
weir=$1
src=$2
if [ ! -x "$(dirname "$weir")/weir-kafka-mock" ] || ! command -v kcat > /dev/null; then
    echo "test_cluster_diff: SKIPPED (no weir-kafka-mock or no kcat)"; exit 0
fi
exec python3 "$src/tests/cluster_diff.py" --weir "$weir" \
    --out "${WEIR_CLUSTERDIFF_OUT:-$PWD/cluster_diff_failures}"
