#!/usr/bin/env bash
# tests/test_restore_change_diff.sh WEIR SOURCE_DIR - randomized differential
# test of restoring into a changed query (tests/restore_change_diff.py): a
# window, group, Top-N, OVER, join, deduplication, window Top-N or
# MATCH_RECOGNIZE job (a
# UNION ALL, computed columns, two phases, NULLs, late rows, a second
# INSERT drawn beside) stopped with a checkpoint or
# savepoint that holds its first input file whole restores into a
# compatible change (aliases, WHERE, final columns, style, parallelism,
# backend; a MATCH_RECOGNIZE's DEFINE over the same running values, its
# partial matches keeping the old verdicts, and measures without calls)
# with the oracle's exact result, or is refused for an
# incompatible one (keys, aggregates, window, N, frame, join type and
# bounds, null-safe keys, a renamed source column, first/last row, a window
# Top-N's windows, a union branch's or computed column's expression, the
# aggregation phases, a MATCH_RECOGNIZE pattern, skip, WITHIN, partition,
# running values or merged partial matches) without touching the
# output or the checkpoint, after which the old query still restores
# exactly.
# Bounded: WEIR_RESTORECHG_JOBS cases (default 14; 3 under ASan). The seed
# is printed; WEIR_SEED=S replays a run, WEIR_RESTORECHG_CASE=i one case.
# Failing cases are kept under WEIR_RESTORECHG_OUT (default ./restore_change_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/restore_change_diff.py" --weir "$weir" --out "${WEIR_RESTORECHG_OUT:-$PWD/restore_change_diff_failures}"
