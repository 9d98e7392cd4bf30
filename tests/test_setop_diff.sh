#!/usr/bin/env bash
# tests/test_setop_diff.sh WEIR SOURCE_DIR - randomized differential test of
# INTERSECT / EXCEPT and their ALL forms: tests/setop_diff.py generates two
# random inputs (repeated rows, NULLs), runs each operation over append-only
# inputs and over changelogs (GROUP BY results) through `weir run` at
# parallelism 1/2/4 and batch sizes 1/7/1024, folds each result changelog
# into its table and compares it with a python oracle of the multiplicity
# rules (docs/sql.md).
# Bounded: WEIR_SETOPDIFF_JOBS jobs (default 12; 6 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_SETOPDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_SETOPDIFF_OUT (default
# ./setop_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/setop_diff.py" --weir "$weir" --out "${WEIR_SETOPDIFF_OUT:-$PWD/setop_diff_failures}"
