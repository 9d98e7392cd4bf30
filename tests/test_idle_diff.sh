#!/usr/bin/env bash
# tests/test_idle_diff.sh WEIR SOURCE_DIR - randomized differential test of
# watermark idleness: tests/idle_diff.py writes random schedules of 1 to 8
# splits of one source subtask (records in and out of order, splits silent,
# all of them silent, back ahead or behind, with a backlog, ending at
# different times; idle timeout on the spec, the job, both or off, or the
# splits saying when they are idle), runs
# each through weir-idle-driver (tests/tools/idle_driver.c: weir's source
# runtime and window operator on a manual clock, next to WEIR) and compares
# the window results (TUMBLE, HOP, CUMULATE, SESSION: merges, late firings,
# -D of merged sessions), late rows and watermarks with a python model
# (docs/connectors.md "Idleness is lag-aware", docs/windows.md).
# Bounded: WEIR_IDLEDIFF_CASES cases (default 80; 20 under ASan), up to
# WEIR_IDLEDIFF_PASSES passes each (default 40); a longer run raises both
# (WEIR_DIFF_WORKERS runs cases side by side). The seed is printed;
# WEIR_SEED=S replays a run, WEIR_IDLEDIFF_CASE=i one case of it. Failing
# cases (schedule.txt, log.txt) are kept under WEIR_IDLEDIFF_OUT (default
# ./idle_diff_failures).
set -u
weir=$1
src=$2
exec python3 "$src/tests/idle_diff.py" --weir "$(dirname "$weir")/weir-idle-driver" \
  --out "${WEIR_IDLEDIFF_OUT:-$PWD/idle_diff_failures}"
