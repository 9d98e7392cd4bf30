#!/usr/bin/env bash
# tests/test_sql_diff.sh WEIR SOURCE_DIR - randomized differential test of
# SQL window aggregations: tests/sql_diff.py generates random out-of-order
# streams and random TUMBLE/HOP/CUMULATE/SESSION aggregations over them
# (WHERE, projections, computed columns, every aggregate, DISTINCT
# aggregates, LISTAGG, HAVING, cascades,
# delays, allowed lateness, parallelism 1/2/4, batch sizes 1/7/1024), runs
# them with `weir run` and compares every result with an oracle that shares
# no code with weir (a row-at-a-time model of the documented lateness rules
# plus SQLite for the aggregates).
#
# Bounded: WEIR_SQLDIFF_JOBS jobs (default 120; 24 under ASan) of up to
# WEIR_SQLDIFF_QUERIES queries (default 40) each; WEIR_DIFF_WORKERS runs
# that many jobs at once (default 1). The seed is printed; WEIR_SEED=S
# replays a run, WEIR_SQLDIFF_JOB=i one job of it. Each failing job
# (job.sql, in.json, run.sh, problems.txt, and a folder q<N> for each query
# that fails alone) is kept under WEIR_SQLDIFF_OUT (default
# ./sql_diff_failures).
# WEIR_SQLDIFF_FEATURES leaves features out ("-where,-cascade"; the names
# are listed in sql_diff.py, ALL_FEATS).
set -u
weir=$1
src=$2
if ! python3 -c 'import sqlite3' 2>/dev/null; then
  echo "FAIL: python3 with its sqlite3 module is needed (scripts/install-deps.sh)"
  exit 1
fi
exec python3 "$src/tests/sql_diff.py" --weir "$weir" \
  --out "${WEIR_SQLDIFF_OUT:-$PWD/sql_diff_failures}"
