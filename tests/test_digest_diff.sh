#!/usr/bin/env bash
# tests/test_digest_diff.sh WEIR SOURCE_DIR - randomized metamorphic test of
# expression sharing (common subexpressions in a SELECT, one projection
# shared by two INSERTs): near-duplicate expressions (one literal with
# quotes, commas or blanks, one CAST or TRY_CAST type, one function
# changed) computed together must give what each gives computed alone in a
# job of its own (tests/digest_diff.py). Bounded: WEIR_DIGESTDIFF_JOBS cases
# (default 4; 2 under ASan) of WEIR_DIGESTDIFF_EXPRS expressions (default
# 12) over WEIR_DIGESTDIFF_ROWS rows (default 20). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_DIGESTDIFF_JOB=i one case of it. Failing
# cases go to WEIR_DIGESTDIFF_OUT (default ./digest_diff_failures).
exec python3 "$2/tests/digest_diff.py" --weir "$1" --out "${WEIR_DIGESTDIFF_OUT:-$PWD/digest_diff_failures}"
