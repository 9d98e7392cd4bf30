#!/usr/bin/env bash
# tests/test_collect_diff.sh WEIR SOURCE_DIR - randomized differential test
# of COLLECT and MULTISET (windows, updating GROUP BY, retraction, OVER)
# against Python's collections.Counter (tests/collect_diff.py). Bounded:
# WEIR_COLLECTDIFF_ROUNDS rounds (default 4; 2 under ASan) of
# WEIR_COLLECTDIFF_ROWS rows (default 150). The seed is printed;
# WEIR_SEED=S replays a run.
set -u
weir=$1
src=$2
rounds=${WEIR_COLLECTDIFF_ROUNDS:-4}
if ldd "$weir" 2>/dev/null | grep -q libasan; then rounds=${WEIR_COLLECTDIFF_ROUNDS:-2}; fi
exec python3 "$src/tests/collect_diff.py" --weir "$weir" --rounds "$rounds" --rows "${WEIR_COLLECTDIFF_ROWS:-150}"
