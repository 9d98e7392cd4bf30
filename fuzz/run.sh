#!/usr/bin/env bash
# Builds the decoder fuzz targets with clang's libFuzzer (plus ASan and
# UBSan) and runs each for a bounded time.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     default: 60 seconds, every fuzz/fuzz_*.c
#
# WEIR_FUZZ_RUNS=N bounds each target by N executions instead of time
# (scripts/fuzz-long.sh: 10 M each); WEIR_FUZZ_NICE=K runs the targets under
# nice -n K; WEIR_FUZZ_MAX_LEN overrides the input size bound (4096) and
# WEIR_FUZZ_TIMEOUT the seconds after which a unit is a hang (10).
#
# Corpora grow in fuzz/corpus-<target>/ (seeded from fuzz/seeds/<target>/,
# not committed); crashes are written to fuzz/crash-<target>-* and make the
# script fail. WEIR_FUZZ_WORK=DIR puts the build, corpora and crashes there
# instead (the ctest wrapper tests/test_fuzz.sh uses a temporary folder).
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$src"/fuzz/fuzz_*.c; do
    t="$(basename "$f" .c)"
    targets+=("${t#fuzz_}")
  done
fi
work="${WEIR_FUZZ_WORK:-$src/fuzz}"
bin="${WEIR_FUZZ_WORK:-$src/build-fuzz}"
mkdir -p "$bin/obj" "$work"
CC="${CC_FUZZ:-clang}"
cflags=(-g -O1 -std=c17 -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -ffunction-sections -fdata-sections -I"$src/include" -I"$src/src")
# The library code the targets use (the decoders; the checkpoint reader and
# the memory state backend it restores into), compiled once with coverage
# for all targets; each target links only what it calls (--gc-sections).
echo "fuzz: building the library objects"
printf '%s\n' "$src"/src/format/*.c "$src"/src/record/batch.c "$src"/src/record/schema.c "$src"/src/record/nested.c \
  "$src"/src/record/key.c "$src"/src/util/*.c "$src"/src/time/timefmt.c "$src"/src/time/clock.c \
  "$src"/src/checkpoint/format.c "$src"/src/runtime/checkpoint.c "$src"/src/state/memory_backend.c \
  "$src"/src/state/state.c "$src"/src/state/slab.c "$src"/src/state/snapshot.c \
  "$src"/src/state/timer_service.c "$src"/fuzz/stubs.c |
  xargs -P "$(nproc)" -I{} sh -c 'o="$1/obj/$(echo "$2" | tr / _).o"; "$3" $4 -fsanitize=fuzzer-no-link -c "$2" -o "$o"' \
    _ "$bin" {} "$CC" "${cflags[*]}"
limit=(-max_total_time="$seconds")
what="${seconds}s"
if [ -n "${WEIR_FUZZ_RUNS:-}" ]; then
  limit=(-runs="$WEIR_FUZZ_RUNS")
  what="$WEIR_FUZZ_RUNS executions"
fi
nice_cmd=()
if [ -n "${WEIR_FUZZ_NICE:-}" ]; then
  nice_cmd=(nice -n "$WEIR_FUZZ_NICE")
fi
status=0
for t in "${targets[@]}"; do
  exe="$bin/fuzz_$t"
  echo "fuzz: building $t"
  "$CC" "${cflags[@]}" -fsanitize=fuzzer "$src/fuzz/fuzz_$t.c" "$bin"/obj/*.o -Wl,--gc-sections -lxxhash -lm -lpthread -o "$exe"
  corpus="$work/corpus-$t"
  mkdir -p "$corpus"
  cp -n "$src/fuzz/seeds/$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz: running $t for $what"
  if ! "${nice_cmd[@]}" "$exe" "${limit[@]}" -max_len="${WEIR_FUZZ_MAX_LEN:-4096}" -timeout="${WEIR_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
      -artifact_prefix="$work/crash-$t-" -print_final_stats=1 "$corpus" 2>"$work/fuzz-$t.log"; then
    echo "fuzz: $t FAILED; see $work/fuzz-$t.log and $work/crash-$t-*"
    tail -40 "$work/fuzz-$t.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb" "$work/fuzz-$t.log" | sed "s/^/fuzz: $t /"
  fi
done
exit $status
