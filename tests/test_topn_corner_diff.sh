#!/usr/bin/env bash
# tests/test_topn_corner_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the continuous Top-N at its corners (tests/topn_corner_diff.py):
# each partition's changelog, change by change, against a Python model -
# ROW_NUMBER with N from 1 to 10, a lower bound or none, the rank number
# or not, deduplication; append-only and debezium-json (retracting) input
# with retractions of rows not kept; ties, NULLs, empty, long (over 16 KiB)
# and many strings; batches of 1 to 7 rows (output batches sent between a
# row's -U and +U), RocksDB, TTL, parallelism 1/2/4; three cases in ten
# stopped with a checkpoint mid-input and restored at another parallelism.
# Bounded: WEIR_TOPNC_JOBS cases (default 120; 25 under ASan), at most
# WEIR_TOPNC_ROWS rows each (default 300). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_TOPNC_JOB=i one case of it. Failing cases
# are written under WEIR_TOPNC_OUT (default ./topn_corner_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/topn_corner_diff.py" --weir "$weir" --out "${WEIR_TOPNC_OUT:-$PWD/topn_corner_diff_failures}"
