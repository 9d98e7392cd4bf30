#!/usr/bin/env bash
# tests/test_changelog_diff.sh WEIR SOURCE_DIR - randomized differential test
# of the non-windowed SQL operators: GROUP BY (keyed, global, HAVING, a
# GROUP BY over a GROUP BY), OVER aggregations (ROWS/RANGE frames and the
# per-partition lateness rule), Top-N (also over a GROUP BY: the retracting
# Top-N), deduplication and regular joins (INNER/LEFT/RIGHT/FULL), IN /
# EXISTS subqueries (semi and anti joins). tests/changelog_diff.py generates random
# out-of-order streams and queries, runs them with `weir run` at random
# parallelism and batch sizes, materializes the printed changelog and
# compares it with an oracle that shares no code with weir (SQLite, plus a
# row-at-a-time model of the OVER lateness rule).
#
# Bounded: WEIR_CLDIFF_JOBS jobs (default 40; 10 under ASan) of up to
# WEIR_CLDIFF_QUERIES queries (default 12); WEIR_DIFF_WORKERS runs that
# many jobs at once (default 1). The seed is printed; WEIR_SEED=S replays a
# run, WEIR_CLDIFF_JOB=i one job of it. Failing jobs (and a folder q<N> for
# each query that fails alone) are kept under WEIR_CLDIFF_OUT (default
# ./changelog_diff_failures).
set -u
weir=$1
src=$2
if ! python3 -c 'import sqlite3' 2>/dev/null; then
  echo "FAIL: python3 with its sqlite3 module is needed (scripts/install-deps.sh)"
  exit 1
fi
exec python3 "$src/tests/changelog_diff.py" --weir "$weir" \
  --out "${WEIR_CLDIFF_OUT:-$PWD/changelog_diff_failures}"
