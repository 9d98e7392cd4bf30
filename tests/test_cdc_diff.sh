#!/usr/bin/env bash
# tests/test_cdc_diff.sh WEIR SOURCE_DIR - randomized differential test of
# queries over changelog (debezium-json) sources: tests/cdc_diff.py writes
# two random, consistent change histories (snapshot reads, creates,
# updates of any column, deletes), runs filters, GROUP BYs, DISTINCT,
# joins and Top-N over them through `weir run` at parallelism 1/2/4 and
# batch sizes 1/2/3/7/1024 (memory or RocksDB state), folds each result
# changelog into its table and compares it with SQLite's answer over the
# final tables. About one job in three writes into PRIMARY KEY sinks, folded
# as upserts: debezium-json files under upsert-materialize FORCE, or (half
# of them, when weir-kafka-mock and kcat are there) upsert-kafka topics on
# the mock cluster under AUTO, read back with kcat, so an upsert key weir
# wrongly infers (no materializer) shows as a wrong result.
# Bounded: WEIR_CDCDIFF_JOBS jobs (default 16; 6 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_CDCDIFF_JOB=i one job of it.
# Failing jobs are written under WEIR_CDCDIFF_OUT (default ./cdc_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/cdc_diff.py" --weir "$weir" --out "${WEIR_CDCDIFF_OUT:-$PWD/cdc_diff_failures}"
