#!/usr/bin/env bash
# tests/test_cast_diff.sh WEIR SOURCE_DIR - randomized differential test of
# CAST and TRY_CAST between STRING, INT, BIGINT, DOUBLE, DECIMAL and
# BOOLEAN, and of STRING to DATE, TIME and TIMESTAMP (random texts: numbers
# as people write them, Java's double syntax, edge shapes, dates and times
# in and out of range; random values: doubles of every exponent, 64-bit
# edges, DECIMALs), of TIMESTAMP, TIMESTAMP_LTZ, STRING, DATE, TIME and
# BIGINT to TIMESTAMP(p) / TIMESTAMP_LTZ(p), p = 0 to 3, in values and as a
# GROUP BY key, in a random session zone, against a model of
# docs/functions.md's rules and Java's parsing and Double.toString
# (tests/cast_diff.py), and that a CAST of an invalid text fails the job
# naming it. Bounded: WEIR_CASTDIFF_JOBS jobs
# (default 12; 4 under ASan) of WEIR_CASTDIFF_ROWS rows (default 500). The
# seed is printed; WEIR_SEED=S replays a run, WEIR_CASTDIFF_JOB=i one job
# of it. Failing cases go to WEIR_CASTDIFF_OUT (default ./cast_diff_failures).
exec python3 "$2/tests/cast_diff.py" --weir "$1" --out "${WEIR_CASTDIFF_OUT:-$PWD/cast_diff_failures}"
