#!/usr/bin/env bash
# tests/test_join_bounded_diff.sh WEIR SOURCE_DIR - randomized differential
# test of regular joins with a window aggregation whose state is bounded by
# the watermark (Nexmark q7's shape): tests/join_bounded_diff.py generates
# random out-of-order bid streams (late rows, ties on window boundaries,
# NULL prices) and random conditions between a bid's time and a window's
# window_end, runs them with `weir run` at parallelism 1/2/4 and batch
# sizes 1/7/1024, and compares each result with a nested-loop oracle that
# shares no code with weir.
#
# Bounded: WEIR_JOINDIFF_CASES cases (default 30; scripts/test.sh
# --sanitize sets fewer). The seed is printed; WEIR_SEED=S replays it, WEIR_JOINDIFF_CASE=i one case.
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_bounded_diff.py" --weir "$weir" --out "${WEIR_JOINDIFF_OUT:-$PWD/join_bounded_diff_failures}"
