#!/usr/bin/env bash
# tests/test_udtf_diff.sh WEIR SOURCE_DIR - randomized differential test of
# table functions in C (LATERAL TABLE, inner and LEFT ... ON TRUE forms,
# NULL arguments, empty and multi-row outputs, a window aggregation over
# the rows, an updating input): tests/udtf_diff.py runs the example library
# libweir_udtf_example.so through `weir run` at parallelism 1/2/4 and batch
# sizes 1/7/1024 and compares each folded changelog with Python models.
# Bounded: WEIR_UDTFDIFF_JOBS jobs (default 6; 3 under ASan), 7 queries
# each. The seed is printed; WEIR_SEED=S replays a run, WEIR_UDTFDIFF_JOB=i
# one job of it. Failing jobs are written under WEIR_UDTFDIFF_OUT.
set -u
weir=$1
src=$2
exec python3 "$src/tests/udtf_diff.py" --weir "$weir" --out "${WEIR_UDTFDIFF_OUT:-$PWD/udtf_diff_failures}"
