#!/usr/bin/env bash
# tests/test_create_function.sh WEIR SOURCE_DIR - CREATE FUNCTION ...
# LANGUAGE C with the example library (examples/udf, built next to weir as
# libweir_udf_example.so): clamp() and reverse_str() from the library,
# another name for a registered function, DROP FUNCTION, at parallelism 1,
# 2 and 4 against rows derived by hand; then the refusals, each naming the
# construct (a Java or Python class, a missing library or symbol, a name
# that exists, a dropped name); table functions from libweir_udtf_example.so
# (another name, SHOW USER FUNCTIONS, a dropped one).
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lib=$(cd "$(dirname "$weir")" && pwd)/libweir_udf_example.so
[ -f "$lib" ] || { echo "FAIL: $lib is not built"; exit 1; }
tlib=$(cd "$(dirname "$weir")" && pwd)/libweir_udtf_example.so
[ -f "$tlib" ] || { echo "FAIL: $tlib is not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
# The header's inline helpers are exported too: a library built against an
# earlier weir, or without optimisation, calls them by name.
for sym in weir_type_width weir_type_size weir_error_set; do
  nm -D "$weir" | grep -q " T $sym\$" || { echo "FAIL: weir does not export $sym"; fail=1; }
done
printf '1,abc\n20,xy\n-5,\n,q\n7,ab c\n' > t.csv
cat > job.sql <<SQL
CREATE TEMPORARY SYSTEM FUNCTION clamp AS 'weir_example_clamp' LANGUAGE C USING JAR '$lib';
CREATE FUNCTION IF NOT EXISTS reverse_str AS 'weir_example_reverse' LANGUAGE C USING JAR '$lib';
-- a second IF NOT EXISTS of an existing name does nothing
CREATE FUNCTION IF NOT EXISTS reverse_str AS 'weir_example_clamp' LANGUAGE C USING JAR '$lib';
-- another name of a registered function
CREATE TEMPORARY FUNCTION rev2 AS 'reverse_str';
CREATE TABLE t (x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT x, clamp(x, 0, 10), reverse_str(s), rev2(UPPER(s)) FROM t WHERE clamp(x, 2, 9) <> 2 OR x IS NULL;
-- the job above keeps calling rev2; later statements no longer know it
DROP TEMPORARY FUNCTION rev2;
DROP FUNCTION IF EXISTS rev2;
SQL
# clamp(x, 2, 9) <> 2 keeps x = 20 (9) and 7 (7); x = 1 and -5 clamp to 2; x NULL by IS NULL
want=$(printf '+I[20, 10, yx, YX]\n+I[7, 7, c ba, C BA]\n+I[null, null, q, Q]\n' | LC_ALL=C sort)
for p in 1 2 4; do
  got=$("$weir" run job.sql -D parallelism.default=$p 2>err.txt)
  rc=$?
  got=$(sed -E 's/^[0-9]+> //' <<<"$got" | LC_ALL=C sort)
  if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
    echo "FAIL rows at parallelism $p (exit $rc):"; echo "$got"; head -3 err.txt; fail=1
  fi
done
# refusals: "statement|expected message"
while IFS='|' read -r stmt msg; do
  printf '%s\n' "$stmt" > e.sql
  out=$("$weir" run e.sql 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 3 ] || ! grep -qF -- "$msg" <<<"$out"; then
    echo "FAIL: $stmt"; echo "  exit $rc: $out"; echo "  expected (exit 3): $msg"; fail=1
  fi
done <<LIST
CREATE FUNCTION f AS 'com.example.Foo';|e.sql:1:1: error: function 'f': 'com.example.Foo' is a JAVA class, which weir cannot run
CREATE FUNCTION f AS 'udfs.f' LANGUAGE PYTHON;|e.sql:1:40: error: function 'f': 'udfs.f' is a PYTHON class, which weir cannot run
CREATE FUNCTION f AS 'C' LANGUAGE SCALA USING JAR 'x.jar';|error: function 'f': 'C' is a SCALA class, which weir cannot run
CREATE FUNCTION f AS 'nosym' LANGUAGE C USING JAR '$lib';|error: function 'f': the library '$lib' has no symbol 'nosym'
CREATE FUNCTION f AS 's' LANGUAGE C USING JAR '$work/none.so';|error: function 'f': cannot load the library '$work/none.so'
CREATE FUNCTION f AS 's' LANGUAGE C;|error: function 'f': LANGUAGE C takes one shared library: USING JAR '/path/lib.so'
CREATE FUNCTION upper AS 'weir_example_clamp' LANGUAGE C USING JAR '$lib';|e.sql:1:17: error: function 'upper' already exists
CREATE FUNCTION myupper AS 'UPPER';|error: function 'myupper': 'UPPER' is a built-in function; only a user function can be given another name
DROP FUNCTION nothing_here;|e.sql:1:15: error: unknown function 'nothing_here'
DROP FUNCTION upper;|error: function 'upper' is built in and cannot be dropped
CREATE FUNCTION rr AS 'weir_example_reverse' LANGUAGE C USING JAR '$lib'; DROP FUNCTION rr; SELECT rr('a');|error: no function rr(STRING)
CREATE FUNCTION sw AS 'weir_example_split_words' LANGUAGE C USING JAR '$tlib'; DROP FUNCTION sw; SELECT w FROM (VALUES ('a')) AS v(s), LATERAL TABLE(sw(v.s)) AS x(w);|error: no table function sw
CREATE FUNCTION sw AS 'weir_example_split_words' LANGUAGE C USING JAR '$tlib'; CREATE FUNCTION sw AS 'weir_example_reverse' LANGUAGE C USING JAR '$lib';|error: function 'sw' already exists
LIST
# table functions from a library: another name, SHOW USER FUNCTIONS, the scalar ones beside them
cat > tf.sql <<SQL
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '$tlib';
CREATE FUNCTION sw2 AS 'split_words';
CREATE FUNCTION reverse_str AS 'weir_example_reverse' LANGUAGE C USING JAR '$lib';
SHOW USER FUNCTIONS;
SELECT w, reverse_str(w) FROM (VALUES ('ab cd'), ('e')) AS v(s), LATERAL TABLE(sw2(v.s)) AS x(w);
SQL
want=$(printf '+---------------+\n| function name |\n+---------------+\n|   reverse_str |\n|   split_words |\n|           sw2 |\n+---------------+\n3 rows in set\n+I[ab, ba]\n+I[cd, dc]\n+I[e, e]\n')
got=$("$weir" run tf.sql 2>err.txt | sed -E 's/^[0-9]+> //')
if [ "$got" != "$want" ]; then
  echo "FAIL: table functions from the library:"; echo "$got"; head -3 err.txt; fail=1
fi
[ $fail -eq 0 ] && echo "test_create_function: passed"
exit $fail
