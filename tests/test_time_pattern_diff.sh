#!/usr/bin/env bash
# tests/test_time_pattern_diff.sh WEIR SOURCE_DIR - randomized differential
# test of date/time patterns: random patterns of the letters
# docs/functions.md lists (each 1-5 times, quoted text, '' and punctuation)
# format random TIMESTAMPs of years 1-9999 and instants around a session
# zone's offset changes with DATE_FORMAT and FROM_UNIXTIME, and parse the
# texts back (some spoiled) with TO_TIMESTAMP, TO_DATE and UNIX_TIMESTAMP,
# against a model of the documented letters and Java's rules
# (tests/time_pattern_diff.py); an unsupported letter or an unterminated
# quote must be refused, named. Bounded: WEIR_TPDIFF_JOBS jobs (default 20;
# 4 under ASan) of WEIR_TPDIFF_ROWS rows (default 60). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_TPDIFF_JOB=i one job of it. Failing cases
# go to WEIR_TPDIFF_OUT (default ./time_pattern_diff_failures).
exec python3 "$2/tests/time_pattern_diff.py" --weir "$1" --out "${WEIR_TPDIFF_OUT:-$PWD/time_pattern_diff_failures}"
