#!/usr/bin/env bash
# tests/test_printf_diff.sh WEIR SOURCE_DIR - randomized differential test of
# PRINTF against a Python model of Java's java.util.Formatter
# (tests/printf_diff.py: Python's decimal module, no code shared with weir).
# Bounded: WEIR_PRINTFDIFF_JOBS jobs (default 10; 3 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_PRINTFDIFF_JOB=i one job of it.
# Failing cases go to WEIR_PRINTFDIFF_OUT (default ./printf_diff_failures).
exec python3 "$2/tests/printf_diff.py" --weir "$1" --out "${WEIR_PRINTFDIFF_OUT:-$PWD/printf_diff_failures}"
