#!/usr/bin/env bash
# tests/test_top1_skip_diff.sh WEIR SOURCE_DIR - randomized differential
# test of a regular join that skips the rows its Top-1 would drop
# (tests/top1_skip_diff.py): per key, the changelog of a Top-1 over a join
# of an input with one row per key and one with many (hot keys, ties,
# NULLs, a residual, a filter between join and Top-1, ASC and DESC, the
# rank number or not), the skipping on and off, against a Python oracle;
# some runs stopped with a checkpoint mid-input and restored at another
# parallelism. Bounded: WEIR_TOP1SKIP_JOBS cases (default 24; 10 under
# ASan). The seed is printed; WEIR_SEED=S replays a run,
# WEIR_TOP1SKIP_JOB=i one case of it. Failing cases are written under
# WEIR_TOP1SKIP_OUT (default ./top1_skip_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/top1_skip_diff.py" --weir "$weir" --out "${WEIR_TOP1SKIP_OUT:-$PWD/top1_skip_diff_failures}"
