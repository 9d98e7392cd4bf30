#!/usr/bin/env bash
# tests/test_reuse_diff.sh WEIR SOURCE_DIR - randomized metamorphic test of
# sub-plan reuse (operators: sources, calcs, aggregations): a base query
# over a JSON file, a datagen table or a partitioned table and near-
# duplicates of it that each change one thing deciding its rows (a
# window's kind, size, slide or offset, the GROUP BY keys, an aggregate,
# HAVING, a WHERE literal, a Top-N's N, order or partition, a
# deduplication's order, a join's condition or type, an OVER aggregation's
# function, partition or frame, a window Top-N's N, order, partition, rank
# function or window, an interval join's bounds or a window join's
# window, an OPTIONS hint, UNION
# or UNION ALL, DISTINCT), plus the base again, run as the INSERTs of one
# job must give what each gives alone in a job of its own; EXPLAIN must
# show the exact duplicate as Reused (tests/reuse_diff.py). Bounded:
# WEIR_REUSEDIFF_JOBS cases (default 40; 12 under ASan) over
# WEIR_REUSEDIFF_ROWS rows (default 24). The seed is printed; WEIR_SEED=S
# replays a run, WEIR_REUSEDIFF_JOB=i one case of it. Failing cases go to
# WEIR_REUSEDIFF_OUT (default ./reuse_diff_failures).
exec python3 "$2/tests/reuse_diff.py" --weir "$1" --out "${WEIR_REUSEDIFF_OUT:-$PWD/reuse_diff_failures}"
