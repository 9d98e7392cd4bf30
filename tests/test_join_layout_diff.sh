#!/usr/bin/env bash
# tests/test_join_layout_diff.sh WEIR SOURCE_DIR - randomized differential
# test of the rows a join keeps and gives back (the row log's elements
# without their key columns, the bounded side's time before the row or in
# it; outer, interval, semi and anti sides' map entries):
# tests/join_layout_diff.py draws key columns of every type (DATE, TIME(p),
# BYTES/VARBINARY/BINARY, CHAR, DECIMAL up to 38 digits among them), in
# other orders on the two sides, repeated, composite, NULL; regular (inner
# and outer, '=' and IS NOT DISTINCT FROM, residuals), interval,
# watermark-bounded (the bounded side left or right, its time a key: kept
# before the row) and semi/anti ([NOT] EXISTS, [NOT] IN) joins selecting
# every column, times of precision 0 to 3 and before 1970, r now and then
# a debezium-json changelog keyed by a DOUBLE (-0.0, 0.0, NaN); some jobs
# stopped with a checkpoint mid-input and restored at another
# parallelism. Each result is compared, column by column, with a Python
# oracle.
# Bounded: WEIR_LAYOUT_JOBS jobs (default 30; 16 under ASan), 3 to 6
# queries each. The seed is printed; WEIR_SEED=S replays a run,
# WEIR_LAYOUT_JOB=i one job of it. Failing jobs are written under
# WEIR_LAYOUT_OUT (default ./join_layout_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/join_layout_diff.py" --weir "$weir" --out "${WEIR_LAYOUT_OUT:-$PWD/join_layout_diff_failures}"
