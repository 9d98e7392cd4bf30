#!/usr/bin/env bash
# Two-input SQL jobs give the same rows at every batch size and parallelism
# (one split per input): each case below runs at batch sizes 1, 7 and 1024
# and parallelism 1, 2 and 4 and must print its expected.txt (compared as
# the golden tests do: order-insensitive, "N> " prefixes ignored).
# Usage: test_two_input_determinism.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
src=$2
cases=(tests/sql/window_join_tvf_full tests/sql/window_join tests/sql/interval_join)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
normalize() { sed -E 's/^[0-9]+> //; s/^([A-Za-z0-9_-]+):[0-9]+> /\1> /' | LC_ALL=C sort; }
pass=0
fail=0
for c in "${cases[@]}"; do
  for bs in 1 7 1024; do
    for p in 1 2 4; do
      rm -rf "$work/run"; mkdir -p "$work/run"; cp -r "$src/$c/." "$work/run"
      out=$(cd "$work/run" && "$weir" run job.sql -D parallelism.default=$p -D weir.batch-size=$bs 2>"$work/err")
      code=$?
      if [ $code -ne 0 ]; then
        echo "FAIL $c (batch size $bs, parallelism $p): exit $code"; head -5 "$work/err"
        fail=$((fail + 1)); continue
      fi
      if [ -x "$src/$c/check" ] && ! (cd "$work/run" && ./check); then
        echo "FAIL $c (batch size $bs, parallelism $p): check failed"
        fail=$((fail + 1)); continue
      fi
      if ! diff <(normalize <"$src/$c/expected.txt") <(normalize <<<"$out") >"$work/diff"; then
        echo "FAIL $c (batch size $bs, parallelism $p): output differs (< expected, > actual)"; head -20 "$work/diff"
        fail=$((fail + 1)); continue
      fi
      pass=$((pass + 1))
    done
  done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
