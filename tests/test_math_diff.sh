#!/usr/bin/env bash
# tests/test_math_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the numeric functions and INT / BIGINT / DOUBLE arithmetic (+ - * / % MOD,
# unary minus, ABS, SIGN, FLOOR, CEIL, ROUND and TRUNCATE at any digits,
# POWER, SQRT, EXP, the logarithms, the trigonometric and hyperbolic
# functions, DEGREES, RADIANS, GREATEST / LEAST over mixed types, BIN, HEX)
# over random values with their edges (0, -0.0, +-1, INT and BIGINT limits,
# NaN, +-Infinity, huge and tiny doubles, DECIMALs at their precision,
# NULL) against a model of docs/functions.md and java.lang.Math
# (tests/math_diff.py; mpmath gives the exact values of the transcendental
# functions), results and TYPEOF both; a zero integer divisor must fail the
# job. Bounded: WEIR_MATHDIFF_JOBS jobs (default 40; 16 under ASan) of
# WEIR_MATHDIFF_ROWS rows (default 300) and WEIR_MATHDIFF_EXPRS expressions
# (default 24). The seed is printed; WEIR_SEED=S replays a run,
# WEIR_MATHDIFF_JOB=i one job of it. Failing cases go to WEIR_MATHDIFF_OUT
# (default ./math_diff_failures).
exec python3 "$2/tests/math_diff.py" --weir "$1" --out "${WEIR_MATHDIFF_OUT:-$PWD/math_diff_failures}"
