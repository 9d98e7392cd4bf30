#!/usr/bin/env bash
# tests/test_interval_time_attr_diff.sh WEIR SOURCE_DIR - randomized
# differential test of the time attributes an inner interval join keeps
# (windows over the left or the right time, after a projection, OVER by the
# right time) against a Python oracle that shares no code with weir
# (tests/interval_time_attr_diff.py). WEIR_ITADIFF_CASES cases (default 12;
# 3 under ASan). The seed is printed; WEIR_SEED=S replays a run,
# WEIR_ITADIFF_CASE=i one case of it. Failing cases are kept under
# WEIR_ITADIFF_OUT (default ./interval_time_attr_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/interval_time_attr_diff.py" --weir "$weir" --out "${WEIR_ITADIFF_OUT:-$PWD/interval_time_attr_diff_failures}"
