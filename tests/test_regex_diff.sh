#!/usr/bin/env bash
# tests/test_regex_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the regular expression functions (REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE,
# REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR) against Python's re module on
# the part of Java's regex language both share (tests/regex_diff.py).
# Bounded: WEIR_REGEXDIFF_JOBS jobs (default 30; 8 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_REGEXDIFF_JOB=i one job of it.
# Failing cases go to WEIR_REGEXDIFF_OUT (default ./regex_diff_failures).
set -u
weir=$1
src=$2
probe=$(mktemp)
trap 'rm -f "$probe"' EXIT
echo "SELECT REGEXP_COUNT(x, 'a') FROM (VALUES ('a')) AS t(x);" >"$probe"
if ! "$weir" run "$probe" >/dev/null 2>&1; then
  echo "SKIP: weir is built without PCRE2"
  exit 0
fi
rm -f "$probe"
exec python3 "$src/tests/regex_diff.py" --weir "$weir" --out "${WEIR_REGEXDIFF_OUT:-$PWD/regex_diff_failures}"
