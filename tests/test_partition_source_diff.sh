#!/usr/bin/env bash
# tests/test_partition_source_diff.sh WEIR SOURCE_DIR - randomized
# differential test of reading PARTITIONED BY filesystem tables:
# tests/partition_source_diff.py makes random k=v folder layouts of partition
# columns of every scalar type (written by weir's partitioned sink, whose
# folder names it checks against a model, or by hand with escapes, the
# default partition, stray and hidden files), reads them back with random WHERE conditions on
# partition and data columns at parallelism 1/2/4 (sometimes in byte
# ranges), and compares the rows, and the rows the source read (partition
# pruning), with a python oracle. Bounded: WEIR_PARTDIFF_JOBS cases
# (default 16; 4 under ASan). The seed is printed; WEIR_SEED=S replays a
# run, WEIR_PARTDIFF_JOB=i one case of it. Failing cases are kept under
# WEIR_PARTDIFF_OUT (default ./partition_source_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/partition_source_diff.py" --weir "$weir" --out "${WEIR_PARTDIFF_OUT:-$PWD/partition_source_diff_failures}"
