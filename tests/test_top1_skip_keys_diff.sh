#!/usr/bin/env bash
# tests/test_top1_skip_keys_diff.sh WEIR SOURCE_DIR - randomized differential
# test of a regular join that skips the rows its Top-1 would drop, over
# the keys and sort keys tests/top1_skip_diff.py does not draw
# (tests/top1_skip_keys_diff.py): join keys of one or two columns of
# BIGINT, INT, STRING, DOUBLE (0.0 and -0.0), TIMESTAMP(3), DECIMAL;
# duplicate keys on both sides; ORDER BY 1 to 3 columns of either side
# (BOOLEAN too, strings longer than a hint entry); the partition by the
# left key, the right one or the key reversed. The final table, skipping
# on and off, against a Python oracle (per partition the least sort key of
# its pairs). Bounded: WEIR_TOP1KEYS_JOBS cases (default 24; 8 under
# ASan). The seed is printed; WEIR_SEED=S replays a run,
# WEIR_TOP1KEYS_JOB=i one case of it. Failing cases are written under
# WEIR_TOP1KEYS_OUT (default ./top1_skip_keys_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/top1_skip_keys_diff.py" --weir "$weir" --out "${WEIR_TOP1KEYS_OUT:-$PWD/top1_skip_keys_diff_failures}"
