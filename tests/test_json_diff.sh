#!/usr/bin/env bash
# tests/test_json_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the SQL/JSON functions (JSON_VALUE [RETURNING type], JSON_EXISTS, JSON_QUERY, IS JSON)
# against Python's json module (tests/json_diff.py): random nested
# documents, some damaged, random lax/strict paths.
# Bounded: WEIR_JSONDIFF_JOBS jobs (default 20; 6 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_JSONDIFF_JOB=i one job of it.
# Failing cases go to WEIR_JSONDIFF_OUT (default ./json_diff_failures).
exec python3 "$2/tests/json_diff.py" --weir "$1" --out "${WEIR_JSONDIFF_OUT:-$PWD/json_diff_failures}"
