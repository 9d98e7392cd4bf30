#!/usr/bin/env bash
# tests/test_case_switch_diff.sh WEIR SOURCE_DIR - randomized differential
# test of CASE over string equalities (evaluated as one lookup per row) and
# of IN over string literals (a hash set) against a Python model
# (tests/case_switch_diff.py).
# Bounded: WEIR_CASEDIFF_JOBS jobs (default 20; 6 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_CASEDIFF_JOB=i one job of it.
# Failing cases go to WEIR_CASEDIFF_OUT (default ./case_switch_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/case_switch_diff.py" --weir "$weir" --out "${WEIR_CASEDIFF_OUT:-$PWD/case_switch_diff_failures}"
