#!/usr/bin/env bash
# tests/test_decimal_diff.sh WEIR SOURCE_DIR - randomized differential test of
# DECIMAL(p, s) up to p = 38 (+ - * / %, CAST, comparisons, IN / NOT IN, SUM, AVG) against
# Python's decimal module (tests/decimal_diff.py). Bounded: WEIR_DECIMAL_CASES
# jobs (default 8; 3 under ASan) of WEIR_DECIMAL_ROWS rows (default 150). The
# seed is printed; WEIR_SEED=S replays a run, WEIR_DECIMAL_CASE=i one job of it.
set -u
weir=$1
src=$2
exec python3 "$src/tests/decimal_diff.py" --weir "$weir" --out "${WEIR_DECIMAL_OUT:-$PWD/decimal_diff_failures}"
