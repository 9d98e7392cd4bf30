#!/usr/bin/env bash
# Builds the library and the weir command in the standard CMake build types
# with gcc and clang, warnings as errors, so that no optimisation level or
# compiler turns a warning into a failed build. The default build type (none
# given) is RelWithDebInfo, set in CMakeLists.txt. Tests are not built here
# (scripts/test.sh does that).
#   scripts/build-matrix.sh [build-root]      default build-root: build-matrix
#   WEIR_BUILD_TYPES="Release MinSizeRel" scripts/build-matrix.sh
#   WEIR_MATRIX_SKIP="gcc-RelWithDebInfo" scripts/build-matrix.sh  (CI: the
#   test run builds that one itself, with -Werror)
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-build-matrix}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
mkdir -p "$root"
failed=0 passed=0
for cc in gcc clang; do
  for type in ${WEIR_BUILD_TYPES:-Debug Release RelWithDebInfo}; do
    dir="$root/$cc-$type"
    case " ${WEIR_MATRIX_SKIP:-} " in *" $cc-$type "*) echo "build-matrix: $cc $type skipped"; continue ;; esac
    args=(-DWEIR_WERROR=ON -DCMAKE_BUILD_TYPE="$type" "${launcher[@]}")
    if CC=$cc cmake -S . -B "$dir" "${args[@]}" >"$dir.log" 2>&1 &&
       cmake --build "$dir" -j"$(nproc)" --target weir weir_cli >>"$dir.log" 2>&1; then
      passed=$((passed + 1)); echo "build-matrix: $cc $type ok"
    else
      failed=$((failed + 1)); echo "build-matrix: $cc $type FAILED"
      grep -E 'error|warning' "$dir.log" | head -20
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
