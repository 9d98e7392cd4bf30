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
#   WEIR_MATRIX_SYNTAX="clang-Release" scripts/build-matrix.sh  those only
#   compile each source file of the library and the command with
#   -fsyntax-only (CI: clang's warnings come from its front end, the same
#   at every optimisation level, at a quarter of a build's CPU time)
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-build-matrix}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
mkdir -p "$root"
failed=0 passed=0
# syntax_only DIR: each source file under src/ of DIR's compile_commands.json
# compiled with -fsyntax-only (its flags, warnings as errors, no object)
syntax_only() {
  python3 - "$1/compile_commands.json" <<'PY' | xargs -0 -n1 -P"$(nproc)" sh -c 'eval "$0"'
import json, shlex, sys
seen = set()
for c in json.load(open(sys.argv[1])):
    f = c["file"]
    if "/src/" not in f or f in seen:
        continue
    seen.add(f)
    a, out, skip = shlex.split(c["command"]), [], False
    for x in a:
        if skip:
            skip = False
        elif x in ("-o", "-MF", "-MT"):
            skip = True
        elif x not in ("-c", "-MD"):
            out.append(x)
    sys.stdout.write("cd %s && %s -fsyntax-only\0" % (shlex.quote(c["directory"]), shlex.join(out)))
PY
}
for cc in gcc clang; do
  for type in ${WEIR_BUILD_TYPES:-Debug Release RelWithDebInfo}; do
    dir="$root/$cc-$type"
    case " ${WEIR_MATRIX_SKIP:-} " in *" $cc-$type "*) echo "build-matrix: $cc $type skipped"; continue ;; esac
    args=(-DWEIR_WERROR=ON -DCMAKE_BUILD_TYPE="$type" "${launcher[@]}")
    build=(cmake --build "$dir" -j"$(nproc)" --target weir weir_cli)
    case " ${WEIR_MATRIX_SYNTAX:-} " in *" $cc-$type "*)
      args+=(-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
      build=(syntax_only "$dir") ;;
    esac
    if CC=$cc cmake -S . -B "$dir" "${args[@]}" >"$dir.log" 2>&1 &&
       "${build[@]}" >>"$dir.log" 2>&1; then
      passed=$((passed + 1)); echo "build-matrix: $cc $type ok"
    else
      failed=$((failed + 1)); echo "build-matrix: $cc $type FAILED"
      grep -E 'error|warning' "$dir.log" | head -20
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
