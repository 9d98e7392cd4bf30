#!/usr/bin/env bash
# tests/test_join_keytypes_diff.sh WEIR SOURCE_DIR - randomized differential
# test of every join kind over key columns of different types on the two
# sides (TINYINT to BIGINT, DECIMAL of 1 to 38 digits, DOUBLE, FLOAT, string
# types; NULL, -0.0, NaN and values equal only after a lossy cast):
# tests/join_keytypes_diff.py runs regular, semi / anti, interval, window,
# temporal and lookup joins through `weir run` at parallelism 1/2/4 and
# compares each result with a Python oracle; keys of a number and a string,
# BOOLEAN or TIMESTAMP must be refused at plan time.
# Bounded: WEIR_KEYTYPES_JOBS jobs (default 30; 8 under ASan), 8 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_KEYTYPES_JOB=i
# one job of it. Failing jobs are written under WEIR_KEYTYPES_OUT (default
# ./join_keytypes_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_keytypes_diff.py" --weir "$weir" --out "${WEIR_KEYTYPES_OUT:-$PWD/join_keytypes_diff_failures}"
