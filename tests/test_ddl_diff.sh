#!/usr/bin/env bash
# tests/test_ddl_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the DDL statements: tests/ddl_diff.py runs random scripts of CREATE TABLE
# (and ... LIKE), DROP, ALTER TABLE / VIEW and CREATE / DROP VIEW through
# `weir run`, then SHOW TABLES [LIKE] / SHOW VIEWS / DESCRIBE / SHOW CREATE
# TABLE / SHOW COLUMNS [NOT] LIKE
# and a CREATE TABLE ... AS SELECT of every table, or one statement that
# must fail, and compares with a python model of the catalog; and views over
# tables and views changed under them (ALTER TABLE, DROP and re-CREATE VIEW).
# Bounded: WEIR_DDLDIFF_JOBS cases (default 40; 12 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_DDLDIFF_JOB=i one case of it.
# Failing cases are written under WEIR_DDLDIFF_OUT (default
# ./ddl_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/ddl_diff.py" --weir "$weir" --out "${WEIR_DDLDIFF_OUT:-$PWD/ddl_diff_failures}"
