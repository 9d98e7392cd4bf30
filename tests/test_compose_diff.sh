#!/usr/bin/env bash
# tests/test_compose_diff.sh WEIR SOURCE_DIR - randomized differential
# test of SQL features composed with each other (a CTE read twice, views
# over renamed views, INT = BIGINT and expression join keys, CASE / CAST /
# COALESCE group keys with NULL groups, a scalar subquery in HAVING, GROUP
# BY over UNION ALL, Top-N over an aggregation over a join, aggregations over
# left joins and over aggregations, ORDER BY / LIMIT [OFFSET] over a union,
# ROLLUP, UNNEST under GROUP BY, deduplication over a union, IS NOT DISTINCT
# FROM keys, FILTER aggregates over a join, INTERSECT / EXCEPT of groups;
# in a third of the jobs, event-time windows over a UNION ALL view, over an
# interval join, cascaded and ranked):
# tests/compose_diff.py generates two random inputs, runs six random shapes
# in one statement set through `weir run` at parallelism 1/2/4, batch sizes
# 1/7/1024, memory or RocksDB state, folds each result changelog into its
# table and compares it with SQLite's result of the same query.
# Bounded: WEIR_COMPOSEDIFF_JOBS jobs (default 4; 1 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run,
# WEIR_COMPOSEDIFF_JOB=i one job of it. Failing jobs are written under
# WEIR_COMPOSEDIFF_OUT (default ./compose_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/compose_diff.py" --weir "$weir" --out "${WEIR_COMPOSEDIFF_OUT:-$PWD/compose_diff_failures}"
