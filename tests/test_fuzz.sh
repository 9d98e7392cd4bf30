#!/usr/bin/env bash
# Runs every decoder fuzz target under libFuzzer for a bounded time
# (WEIR_FUZZ_SECONDS, default 8 each). Where clang's libFuzzer is not
# installed this test says so and passes: test_fuzz_replay still runs the
# same targets over the seed corpus and its mutations in every build.
#   bash tests/test_fuzz.sh <weir-binary> <source-dir>
set -euo pipefail
src="${2:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d /tmp/weir-fuzz-XXXXXX)"
trap 'rm -rf "$work"' EXIT
probe="$work/probe.c"
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe"
if ! command -v clang >/dev/null || ! clang -fsanitize=fuzzer "$probe" -o "$work/probe" 2>/dev/null; then
  echo "test_fuzz: clang with libFuzzer not available; skipped (test_fuzz_replay covers the corpus)"
  exit 0
fi
WEIR_FUZZ_WORK="$work" bash "$src/fuzz/run.sh" "${WEIR_FUZZ_SECONDS:-8}"
