#!/usr/bin/env bash
# tests/test_pg_example.sh WEIR SOURCE_DIR - the example
# examples/sql/click-billing-postgres runs as its README says (run.sh starts
# a throwaway server) and writes exactly the windows the print version of
# the job prints, and their sums as upserted totals.
set -u
bash "$2/examples/sql/click-billing-postgres/run.sh" --check "$1" > /dev/null || { echo "FAIL: the PostgreSQL example"; exit 1; }
echo "test_pg_example: passed"
