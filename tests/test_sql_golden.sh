#!/usr/bin/env bash
# Golden SQL tests: every folder tests/sql/<case>/ (and every example under
# examples/sql/<name>/ that has an expected.txt) holds job.sql and the data
# it reads (paths relative to the folder), and either
#   expected.txt        the rows the job prints (order-insensitive; a "N> "
#                       subtask prefix is ignored), checked at parallelism
#                       1, 2 and 4 (WEIR_GOLDEN_PARALLELISM) - the same job must give the same rows;
#   expected-error.txt  a line the error output must contain, with exit 3
#                       (a plan-time error; expected-exit.txt holds another
#                       exit status: 1 for a job that fails while running);
#   check               an executable run after the job in its folder, to
#                       check output files;
#   parallelism-1-only  run at parallelism 1 only (e.g. EXPLAIN output).
# WEIR_GOLDEN_ONE_EACH=1: each case at one of the WEIR_GOLDEN_PARALLELISM
# values, taken in turn by the case's place among all cases (whatever the
# shard), a "-" skipping the case (the sanitizer runs: their processes cost
# several times a plain one's. AddressSanitizer's "2 4" and
# ThreadSanitizer's "4 -" run every case once at 4 between them, the even
# ones at 2 too; the plain run does every case at 1, 2 and 4, CI's at 1).
# Usage: test_sql_golden.sh WEIR_BINARY SOURCE_DIR [CASE...]   (WEIR_GOLDEN_SHARD: below)
set -u
weir=$1
src=$2
shift 2
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$src"/tests/sql/*/; do
    [ -f "$d/job.sql" ] && cases+=("tests/sql/$(basename "$d")")
  done
  for d in "$src"/examples/sql/*/; do
    [ -f "$d/expected.txt" ] && cases+=("examples/sql/$(basename "$d")")
  done
  # WEIR_GOLDEN_SHARD=I/N: every Nth case from the Ith (ctest runs the
  # cases as N tests side by side)
  if [ -n "${WEIR_GOLDEN_SHARD:-}" ]; then
    shard=${WEIR_GOLDEN_SHARD%/*} shards=${WEIR_GOLDEN_SHARD#*/}
    all=("${cases[@]}") cases=()
    for i in "${!all[@]}"; do
      [ $((i % shards)) -eq "$shard" ] && cases+=("${all[$i]}")
    done
    turn=$shard turn_step=$shards
  fi
fi
# @WEIR_DIR@ in a job.sql is the folder of the weir binary (the example C function libraries)
weir_dir=$(cd "$(dirname "$weir")" && pwd)
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a run that does not end is stopped after this long, its threads' stacks
# printed (tests/support/watchdog.sh), and counted as failed: one hang does
# not eat the whole test's time
. "$src/tests/support/watchdog.sh"
limit=${WEIR_GOLDEN_RUN_LIMIT:-300}
normalize() { sed -E 's/^[0-9]+> //; s/^([A-Za-z0-9_-]+):[0-9]+> /\1> /' | LC_ALL=C sort; }
# fresh_copy CASE: the case's folder as a job sees it (@WEIR_DIR@ filled
# in), fresh for every run (a job may write files into it); made once per
# case and copied from there
fresh_copy() {
  if [ "$1" != "${prepared:-}" ]; then
    rm -rf "$work/prepared"; cp -r "$src/$1" "$work/prepared"
    sed -i "s|@WEIR_DIR@|$weir_dir|g" "$work/prepared/job.sql"
    mkdir -p "$work/${1%/*}"
    prepared=$1
  fi
  rm -rf "$work/$1"; cp -r "$work/prepared" "$work/$1"
}
turn=${turn:-0} turn_step=${turn_step:-1}
for c in "${cases[@]}"; do
  dir="$src/$c"
  idx=$turn   # the case's place among all cases
  turn=$((turn + turn_step))
  if [ -f "$dir/expected-error.txt" ]; then
    fresh_copy "$c"
    (cd "$work/$c" && exec "$weir" run job.sql) > /dev/null 2> "$work/err" &
    watch_pid $! "$limit" "$c"
    code=$?
    out=$(< "$work/err")
    want=$(< "$dir/expected-error.txt")
    want_code=3
    [ -f "$dir/expected-exit.txt" ] && want_code=$(cat "$dir/expected-exit.txt")
    if [ $code -eq "$want_code" ] && grep -qF -- "$want" <<<"$out"; then
      pass=$((pass + 1))
    else
      echo "FAIL $c: exit $code, stderr:"; echo "$out" | head -5; echo "  expected (exit $want_code): $want"
      fail=$((fail + 1))
    fi
    continue
  fi
  ps=${WEIR_GOLDEN_PARALLELISM:-1 2 4}
  if [ -n "${WEIR_GOLDEN_ONE_EACH:-}" ]; then
    read -r -a all_ps <<<"$ps"
    ps=${all_ps[$((idx % ${#all_ps[@]}))]}
    [ "$ps" = - ] && continue
  fi
  [ -f "$dir/parallelism-1-only" ] && ps=1   # output that names the parallelism
  [ -f "$dir/expected.txt" ] && normalize < "$dir/expected.txt" > "$work/want"
  for p in $ps; do
    fresh_copy "$c"
    (cd "$work/$c" && exec "$weir" run job.sql -D parallelism.default=$p) > "$work/out" 2> "$work/err" &
    watch_pid $! "$limit" "$c (parallelism $p)"
    code=$?
    if [ $code -ne 0 ]; then
      echo "FAIL $c (parallelism $p): exit $code"; head -5 "$work/err"
      fail=$((fail + 1))
      continue
    fi
    if [ -x "$dir/check" ]; then
      if ! (cd "$work/$c" && ./check); then
        echo "FAIL $c (parallelism $p): check failed"
        fail=$((fail + 1))
        continue
      fi
    fi
    if [ -f "$dir/expected.txt" ]; then
      if ! normalize < "$work/out" | diff "$work/want" - > "$work/diff"; then
        echo "FAIL $c (parallelism $p): output differs (< expected, > actual)"; head -20 "$work/diff"
        fail=$((fail + 1))
        continue
      fi
    fi
    pass=$((pass + 1))
  done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
