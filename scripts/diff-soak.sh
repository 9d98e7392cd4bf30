#!/usr/bin/env bash
# The long run of the randomized differential tests (outside CI): each
# *_diff test again and again with a fresh seed, under nice, so that the
# cases CI draws in one run are followed by many more. CI runs each test
# once per build with a seed of its own; this is the soak that looks for
# the rare case.
#
#   scripts/diff-soak.sh [-r ROUNDS] [-s FIRST_SEED] [-t REGEX] [-x REGEX] [BUILD_DIR]
#
#   ROUNDS      rounds over the tests (default 5); round i uses seed FIRST_SEED + i
#   FIRST_SEED  default: the seconds since 1970, printed
#   -t REGEX    the tests to run (ctest -R; default _diff)
#   -x REGEX    tests to leave out (ctest -E; default: none). Those that start
#               servers (pg, kafka, nats, cluster) need scripts/install-deps.sh first.
#   BUILD_DIR   a configured and built weir (default build)
#
# A failing test prints the seed that replays it (WEIR_SEED=S ctest -R NAME;
# the Kafka, NATS, PostgreSQL and hybrid tests draw their own seed each run
# and print the WEIR_*_SEED that replays them) and keeps its failing cases
# where the test says. Prints one line per
# round and per failure, then "N passed, N failed" over all runs; exits
# non-zero when any run failed.
set -u
rounds=5 first=$(date +%s) pattern=_diff exclude=
while getopts r:s:t:x: o; do
  case $o in
    r) rounds=$OPTARG ;;
    s) first=$OPTARG ;;
    t) pattern=$OPTARG ;;
    x) exclude=$OPTARG ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-build}
[ -f "$build/CTestTestfile.cmake" ] || { echo "diff-soak: $build is not a configured build" >&2; exit 2; }
log=$(mktemp -d /tmp/weir-diff-soak.XXXXXX)
echo "diff-soak: $rounds rounds from seed $first, tests /$pattern/${exclude:+ but /$exclude/}, logs in $log"
pass=0 fail=0
for ((i = 0; i < rounds; i++)); do
  seed=$((first + i))
  start=$(date +%s)
  args=(-R "$pattern" --output-on-failure --timeout 1800)
  [ -n "$exclude" ] && args+=(-E "$exclude")
  WEIR_SEED=$seed nice -n 19 ctest --test-dir "$build" "${args[@]}" > "$log/round-$seed.log" 2>&1
  p=$(grep -c ' Passed ' "$log/round-$seed.log")
  f=$(grep -cE '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run' "$log/round-$seed.log")
  pass=$((pass + p)) fail=$((fail + f))
  echo "round $((i + 1)) seed $seed: $p passed, $f failed, $(($(date +%s) - start)) s"
  grep -E '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run' "$log/round-$seed.log" |
    sed "s/^/  WEIR_SEED=$seed: /"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
