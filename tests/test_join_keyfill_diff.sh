#!/usr/bin/env bash
# tests/test_join_keyfill_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the key columns a regular join writes back into its stored rows:
# tests/join_keyfill_diff.py joins inputs whose stored rows are mostly the
# same bytes under different keys (only the keys selected), keys of one or
# two types (BIGINT, DECIMAL narrow and 30-digit, TIMESTAMP(3),
# TIMESTAMP_LTZ, DATE, TIME, BOOLEAN, BYTES, STRING, DOUBLE; INT = BIGINT,
# DECIMALs of two scales or widths, BIGINT = DECIMAL(38, 0), TIME(0) =
# TIME(3)), many NULLs under IS NOT DISTINCT FROM, INNER /
# LEFT / RIGHT / FULL, residuals reading a stored key column, r now and
# then a debezium-json changelog, a job in four stopped mid-input and
# restored at another parallelism; parallelism 1, 2, 4, batch sizes 1, 7,
# 1024, memory and RocksDB. Each query's final table is compared, column
# by column, with a Python oracle.
# Bounded: WEIR_KEYFILL_JOBS jobs (default 30; 10 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_KEYFILL_JOB=i one job of it.
# Failing jobs are written under WEIR_KEYFILL_OUT (default
# ./join_keyfill_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_keyfill_diff.py" --weir "$weir" --out "${WEIR_KEYFILL_OUT:-$PWD/join_keyfill_diff_failures}"
