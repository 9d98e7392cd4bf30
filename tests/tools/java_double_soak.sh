#!/bin/sh
# Soak: weir's DOUBLE text (Double.toString's, and PRINTF's %e family)
# against Java 17 over N doubles (boundaries, powers of two and ten with
# their neighbours, random bits, subnormals, integers, short fractions).
# Needs java/javac 17 and a built tree; not run by CI (no Java there):
# tests/test_format.c keeps the interesting cases as a golden.
# Usage: tests/tools/java_double_soak.sh BUILD_DIR [SEED] [N]
set -eu
build=$(cd "$1" && pwd)
seed=${2:-1}
n=${3:-300000}
here=$(cd "$(dirname "$0")/java_double_soak" && pwd)
src=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" "$here/JavaDouble.java"
cc -O2 -I"$src/src" -I"$src/include" -I"$build/generated" -o "$tmp/weir_double" "$here/weir_double.c" \
    "$build/libweir.so" -Wl,-rpath,"$build" -lm
python3 "$here/gen.py" "$seed" "$n" > "$tmp/in"
java -cp "$tmp" JavaDouble < "$tmp/in" > "$tmp/java"
"$tmp/weir_double" < "$tmp/in" > "$tmp/weir"
total=$(wc -l < "$tmp/in")
bad=$(paste -d'#' "$tmp/in" "$tmp/java" "$tmp/weir" | awk -F'#' '$2 != $3' | tee "$tmp/diff" | wc -l)
head -20 "$tmp/diff"
echo "java_double_soak: seed $seed, $total doubles, $bad differ"
[ "$bad" -eq 0 ]
