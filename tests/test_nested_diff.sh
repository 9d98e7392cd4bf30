#!/usr/bin/env bash
# tests/test_nested_diff.sh WEIR SOURCE_DIR - randomized differential test of
# ARRAY, MAP and ROW (element access, UNNEST, GROUP BY nested keys, nested
# JSON in and out) against Python's json module (tests/nested_diff.py).
# Bounded: WEIR_NESTEDDIFF_ROUNDS rounds (default 4; 2 under ASan) of
# WEIR_NESTEDDIFF_ROWS documents (default 120). The seed is printed;
# WEIR_SEED=S replays a run.
set -u
weir=$1
src=$2
rounds=${WEIR_NESTEDDIFF_ROUNDS:-4}
if ldd "$weir" 2>/dev/null | grep -q libasan; then rounds=${WEIR_NESTEDDIFF_ROUNDS:-2}; fi
exec python3 "$src/tests/nested_diff.py" --weir "$weir" --rounds "$rounds" --rows "${WEIR_NESTEDDIFF_ROWS:-120}"
