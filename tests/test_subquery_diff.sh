#!/usr/bin/env bash
# tests/test_subquery_diff.sh WEIR SOURCE_DIR - randomized differential
# test of subqueries planned as joins (correlated scalar subqueries in the
# SELECT list and WHERE, scalar subqueries checked at run time to give one
# row, tests in GROUP BY, correlated subqueries of aggregating SELECTs,
# correlation by non-equalities, aggregates as IN's operand, EXISTS in WHERE,
# row constructors: (a, b) [NOT] IN (SELECT ...) in WHERE and as a value, row
# comparisons and row IN lists, LATERAL derived tables (rows, aggregates with
# HAVING / DISTINCT / outer columns, also inside aggregates, over a join or a
# subquery), correlation two levels up (IN, EXISTS, scalar and LATERAL), ...):
# tests/subquery_diff.py generates random
# outer and inner inputs (repeated keys, NULL keys and values), runs random
# subquery shapes through `weir run` at parallelism 1/2/4 and batch sizes
# 1/7/1024, folds each result changelog into its table and compares it
# with a python oracle of SQL's rules.
# Bounded: WEIR_SUBQDIFF_JOBS jobs (default 4; 1 under ASan), 6 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_SUBQDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_SUBQDIFF_OUT (default
# ./subquery_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/subquery_diff.py" --weir "$weir" --out "${WEIR_SUBQDIFF_OUT:-$PWD/subquery_diff_failures}"
