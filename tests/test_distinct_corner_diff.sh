#!/usr/bin/env bash
# tests/test_distinct_corner_diff.sh WEIR SOURCE_DIR - randomized
# differential test of COUNT(DISTINCT) at the corners of the views' cache
# and of the memory backend's records (tests/distinct_corner_diff.py):
# GROUP BY with one to six COUNT(DISTINCT x) [FILTER] sharing a BIGINT,
# STRING, DOUBLE or DECIMAL column, and up to two COUNT(DISTINCT x, y [, z])
# over two or three of them, over append-only and debezium-json
# input, counters past 127 and back to 0, values of 0 - 9 and 250 - 260
# bytes, group keys around 254 bytes, batches of 1 to 1024 rows,
# parallelism 1/2, RocksDB, TTL, a tiny cache bound, checkpoints, and a
# third of the cases stopped mid-input and restored at the other
# parallelism; against a Python model, state by state.
# Bounded: WEIR_DCDIFF_JOBS cases (default 80; 16 under ASan), at most
# WEIR_DCDIFF_ROWS rows each (default 3000). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_DCDIFF_JOB=i one case of it. Failing
# cases are written under WEIR_DCDIFF_OUT (default ./distinct_corner_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/distinct_corner_diff.py" --weir "$weir" --out "${WEIR_DCDIFF_OUT:-$PWD/distinct_corner_diff_failures}"
