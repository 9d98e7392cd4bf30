#!/usr/bin/env bash
# tests/test_interval_qualifier_diff.sh WEIR SOURCE_DIR - randomized
# differential test of INTERVAL literals of every qualifier and of columns
# declared with one (text, CAST between qualifiers, TIMESTAMP arithmetic,
# comparisons, interval addition) against a Python model
# (tests/interval_qualifier_diff.py). Cases: WEIR_IQDIFF_CASES; replay with
# WEIR_SEED (and WEIR_IQDIFF_CASE=i for one case). Failing cases go to
# WEIR_IQDIFF_OUT (default ./interval_qualifier_diff_failures).
exec python3 "$2/tests/interval_qualifier_diff.py" --weir "$1" \
  --out "${WEIR_IQDIFF_OUT:-$PWD/interval_qualifier_diff_failures}"
