#!/usr/bin/env bash
# tests/test_match_diff.sh WEIR SOURCE_DIR - randomized differential test of
# MATCH_RECOGNIZE (patterns with greedy and reluctant quantifiers, DEFINE
# conditions with navigation and aggregates, AFTER MATCH SKIP, WITHIN, at
# parallelism 1, 2 and 4) against a backtracking Python model that shares no
# code with weir (tests/match_diff.py).
# Bounded: WEIR_MATCHDIFF_JOBS jobs of 4 queries (default 8; 3 under ASan);
# job 0 checks long matches of WEIR_MATCHDIFF_LONG rows (default 21 000;
# scripts/test.sh --sanitize sets 6 000; a soak sets more).
# The seed is printed; WEIR_SEED=S replays a run, WEIR_MATCHDIFF_JOB=i one job
# of it. Failing cases are written under WEIR_MATCHDIFF_OUT (default
# ./match_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/match_diff.py" --weir "$weir" --out "${WEIR_MATCHDIFF_OUT:-$PWD/match_diff_failures}"
