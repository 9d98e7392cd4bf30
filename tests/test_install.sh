#!/usr/bin/env bash
# cmake --install into a temporary prefix puts the weir command, libweir
# (static and shared), the headers and weir.pc in place; a program outside
# the tree builds with `pkg-config --cflags --libs weir` and runs against the
# installed shared library; cpack makes a .deb whose control data and file
# list dpkg-deb shows.
# Usage: test_install.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
build=$(cd "$(dirname "$weir")" && pwd)
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEIR_REGISTRY_DIR=$work/reg
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
prefix=$work/prefix
cmake --build "$build" --target weir_shared >/dev/null 2>&1 # ctest may run before a full build
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; rc=$?
check "cmake --install exits 0" test $rc -eq 0
libdir=$(ls -d "$prefix"/lib* | head -1)
check "weir is installed" test -x "$prefix/bin/weir"
check "libweir.a is installed" test -f "$libdir/libweir.a"
check "libweir.so is installed" bash -c "ls '$libdir'/libweir.so* >/dev/null"
check "the headers are installed" test -f "$prefix/include/weir/weir.h"
check "weir.pc is installed" test -f "$libdir/pkgconfig/weir.pc"
out=$("$prefix/bin/weir" --version); check "the installed weir runs" grep -q "^weir " <<<"$out"

# A program outside the tree, built only with what pkg-config says.
mkdir -p "$work/app"
cat >"$work/app/app.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <weir/weir.h>

int main(void)
{
    const char *sql =
        "CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10',"
        " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');"
        "CREATE TABLE o (n BIGINT, s BIGINT) WITH ('connector' = 'print');"
        "INSERT INTO o SELECT COUNT(*), SUM(id) FROM g;";
    weir_sql_job *j;
    weir_error err;
    if (weir_sql_job_create("app.sql", sql, strlen(sql), NULL, &j, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    int rc = weir_job_run(weir_sql_job_graph(j));
    weir_sql_job_destroy(j);
    return rc != 0;
}
C
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=$(pkg-config --cflags --libs weir); rc=$?
check "pkg-config knows weir" test $rc -eq 0
# A sanitizer build's library needs the program built with the same runtime.
san=""
grep -q "^WEIR_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" && san="-fsanitize=address,undefined"
grep -q "^WEIR_TSAN:BOOL=ON" "$build/CMakeCache.txt" && san="-fsanitize=thread"
(cd "$work/app" && cc $san -o app app.c $flags) >"$work/cc.log" 2>&1; rc=$?
check "the program builds against the installed library" test $rc -eq 0
[ $rc -ne 0 ] && cat "$work/cc.log"
check "it links the installed shared library" bash -c "LD_LIBRARY_PATH='$libdir' ldd '$work/app/app' | grep -q '$libdir/libweir.so'"
out=$(cd "$work/app" && LD_LIBRARY_PATH=$libdir ./app 2>&1); rc=$?
check "the program runs" test $rc -eq 0
check "the program's job computes" grep -qF "+U[10, 55]" <<<"$out"
check "pkg-config --static lists the private libraries" bash -c "pkg-config --static --libs weir | grep -q xxhash"

# The Debian package.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") >"$work/cpack.log" 2>&1; rc=$?
check "cpack -G DEB exits 0" test $rc -eq 0
deb=$(ls "$work"/pkg/*.deb 2>/dev/null | head -1)
check "a .deb was made" test -n "$deb"
if [ -n "$deb" ]; then
  dpkg-deb -I "$deb" >"$work/info"
  check "dpkg-deb -I: the package is weir" grep -q "Package: weir" "$work/info"
  check "dpkg-deb -I: it depends on its libraries" grep -q "Depends:.*libxxhash" "$work/info"
  dpkg-deb -c "$deb" >"$work/files"
  for f in ./usr/bin/weir "libweir.a" "libweir.so" ./usr/include/weir/weir.h "pkgconfig/weir.pc"; do
    check "dpkg-deb -c lists $f" grep -q "$f" "$work/files"
  done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
