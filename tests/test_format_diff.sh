#!/usr/bin/env bash
# tests/test_format_diff.sh WEIR SOURCE_DIR - randomized differential test
# of the csv, json and debezium-json formats (tests/format_diff.py): random schemas and
# rows written in random legal spellings (csv quoting, doubled quotes,
# line breaks in quotes, blanks around numbers, null literal, comments,
# header, \r\n, byte-order mark; json member order, whitespace, escapes and
# surrogate pairs, missing and extra members, numbers as 1e2, 1.0, -0 and
# as strings) read by a filesystem source at parallelism 1 or 2 (sometimes
# in byte ranges) into a print sink and a csv/json file sink, against
# Java's texts of the oracle's values; the sink's files parsed by Python's
# csv and json modules and read back by weir; damaged records under the
# fail (FILE:LINE:COL and offset exact), skip (count) and dead-letter
# (file, line, column, offset, raw exact) policies. Bounded:
# WEIR_FMTDIFF_JOBS cases (default 100; 24 under ASan). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_FMTDIFF_JOB=i one case of it. Failing
# cases go to WEIR_FMTDIFF_OUT (default ./format_diff_failures).
exec python3 "$2/tests/format_diff.py" --weir "$1" --out "${WEIR_FMTDIFF_OUT:-$PWD/format_diff_failures}"
