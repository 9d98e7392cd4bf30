#!/usr/bin/env bash
# tests/test_decimal_diff.sh WEIR SOURCE_DIR - randomized differential test of
# DECIMAL(p, s) up to p = 38 (+ - * / %, CAST, comparisons, SUM, AVG) against
# Python's decimal module (tests/decimal_diff.py). Bounded: WEIR_DECIMAL_CASES
# jobs (default 8; 3 under ASan) of WEIR_DECIMAL_ROWS rows (default 150). The
# seed is printed; WEIR_SEED=S replays a run.
set -u
weir=$1
src=$2
cases=${WEIR_DECIMAL_CASES:-8}
if ldd "$weir" 2>/dev/null | grep -q libasan; then cases=${WEIR_DECIMAL_CASES:-3}; fi
exec python3 "$src/tests/decimal_diff.py" --weir "$weir" --cases "$cases" --rows "${WEIR_DECIMAL_ROWS:-150}"
