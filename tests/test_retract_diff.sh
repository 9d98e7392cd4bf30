#!/usr/bin/env bash
# tests/test_retract_diff.sh WEIR SOURCE_DIR - randomized differential test
# of every aggregate function over an updating input: random debezium-json
# histories (inserts, updates of any column - the group key too, or of
# nothing - and deletes, with NULLs, NaN, -0.0, DECIMAL and TIMESTAMP edges)
# read by GROUP BY queries (and a GROUP BY over an inner GROUP BY) with
# COUNT, SUM, AVG, the variance family, MIN/MAX of every type,
# FIRST_VALUE/LAST_VALUE, LISTAGG, the DISTINCT aggregates, COLLECT,
# ARRAY_AGG, JSON_ARRAYAGG and JSON_OBJECTAGG, with FILTER (WHERE ...), under
# mini-batch, two-phase and split-distinct settings, against a model of each
# function's retraction semantics (tests/retract_diff.py). Bounded:
# WEIR_RETRACTDIFF_JOBS jobs (default 40; 20 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_RETRACTDIFF_JOB=i one job of it.
# Failing cases go to WEIR_RETRACTDIFF_OUT (default ./retract_diff_failures).
exec python3 "$2/tests/retract_diff.py" --weir "$1" --out "${WEIR_RETRACTDIFF_OUT:-$PWD/retract_diff_failures}"
