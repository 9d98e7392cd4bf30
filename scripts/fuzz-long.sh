#!/usr/bin/env bash
# The long fuzz run (outside CI): every decoder and reader target for
# 10 M executions each, one process at a time (the same as libFuzzer's
# -jobs=1), under nice so a shared machine stays usable.
#
#   scripts/fuzz-long.sh [TARGET...]      default: json csv ckpt
#
# WEIR_FUZZ_RUNS (default 10000000) changes the count; WEIR_FUZZ_WORK=DIR
# (default /tmp/weir-fuzz-long) keeps the build, the grown corpora, the logs
# and any crash inputs there. Prints, per target, the executions, exec/s and
# new corpus units; exits non-zero when a target found a crash.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(json csv ckpt)
fi
export WEIR_FUZZ_WORK="${WEIR_FUZZ_WORK:-/tmp/weir-fuzz-long}"
export WEIR_FUZZ_RUNS="${WEIR_FUZZ_RUNS:-10000000}"
export WEIR_FUZZ_NICE="${WEIR_FUZZ_NICE:-10}"
# A niced process on a loaded machine can stall for seconds: only a unit
# that runs for a minute counts as a hang.
export WEIR_FUZZ_TIMEOUT="${WEIR_FUZZ_TIMEOUT:-60}"
mkdir -p "$WEIR_FUZZ_WORK"
status=0
for t in "${targets[@]}"; do
  start=$(date +%s)
  bash "$src/fuzz/run.sh" 0 "$t" || status=1
  echo "fuzz-long: $t took $(($(date +%s) - start)) s"
done
exit $status
