#!/bin/bash
# tests/test_sql_fuzz.sh - builds the SQL parser's libFuzzer target and runs
# it for a bounded time on the seed corpus; fails on any crash, leak,
# undefined behaviour or broken parser contract (see fuzz/sql_fuzz.c).
#
# usage: bash tests/test_sql_fuzz.sh <weir-binary> <source-dir>
# WEIR_FUZZ_SECONDS sets the run time (default 30). Without clang and its
# libFuzzer runtime the test is skipped (exit 0 with a note).
set -u
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
secs=${WEIR_FUZZ_SECONDS:-30}

cc=""
for c in clang-14 clang; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then
    echo "SKIP: no clang found; the SQL fuzzer needs clang with libFuzzer"
    exit 0
fi

work=$(mktemp -d /tmp/weir-sql-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Probe for the libFuzzer runtime first, so a missing package is a skip,
# not a failure.
cat > "$work/probe.c" <<'PROBE'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
PROBE
if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null; then
    echo "SKIP: $cc cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)"
    exit 0
fi

# The parser and what it uses, by name: other files under src/sql (the
# planner) and src/util may depend on the rest of weir.
parser_files="arena ast dump lexer literal match_parse parse_expr parse_query parser printer"
sources=("$src/fuzz/sql_fuzz.c" "$src/src/util/alloc.c" "$src/src/util/buf.c"
         "$src/src/util/error.c" "$src/src/util/cnum.c" "$src/src/time/timefmt.c")
for f in $parser_files; do sources+=("$src/src/sql/$f.c"); done

echo "building sql_fuzz with $cc"
if ! "$cc" -g -O1 -std=c17 -D_GNU_SOURCE \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fno-omit-frame-pointer \
    -I"$src/include" -I"$src/src" \
    "${sources[@]}" -lm -lpthread -o "$work/sql_fuzz"; then
    echo "FAIL: could not build the fuzzer"
    exit 1
fi

# libFuzzer adds new inputs to the first corpus directory: use a copy.
mkdir -p "$work/corpus" "$work/artifacts"
cp "$src"/fuzz/corpus/sql/* "$work/corpus/"
# The reference Nexmark queries of the parser tests seed it as well.
for f in "$src"/tests/sql/parse/nexmark/*.sql; do cp "$f" "$work/corpus/nexmark_$(basename "$f")"; done

echo "fuzzing the SQL parser for ${secs}s"
"$work/sql_fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -dict="$src/fuzz/sql.dict" \
    -artifact_prefix="$work/artifacts/" "$work/corpus" > "$work/log" 2>&1
rc=$?
tail -n 25 "$work/log"
if [ $rc -ne 0 ]; then
    echo "FAIL: sql_fuzz exited with $rc"
    for f in "$work"/artifacts/*; do
        [ -f "$f" ] || continue
        echo "--- crashing input $(basename "$f") (hex):"
        od -A d -t x1z -v "$f" | head -n 40
        mkdir -p "$src/fuzz/crashes" 2>/dev/null &&
            cp "$f" "$src/fuzz/crashes/" 2>/dev/null &&
            echo "saved to fuzz/crashes/$(basename "$f")"
    done
    exit 1
fi
echo "PASS: no crash in ${secs}s"
