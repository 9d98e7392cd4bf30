#!/usr/bin/env bash
# Plans every golden SQL job (`weir explain`) under valgrind's memcheck and
# lists the jobs whose planning reads uninitialised memory or worse: a
# longer check than CI's, run by hand (valgrind: apt-get install valgrind).
# ASan and UBSan, which the suite runs under, do not see uninitialised reads.
#   scripts/memcheck-plans.sh [WEIR_BINARY] [STRIDE]   every STRIDE-th case (default 1)
# Prints "N passed, N failed"; the failures' reports are in the work folder.
set -u
cd "$(dirname "$0")/.."
weir=$(cd "$(dirname "${1:-build/weir}")" && pwd)/$(basename "${1:-build/weir}")
stride=${2:-1}
command -v valgrind > /dev/null || { echo "memcheck-plans: needs valgrind"; exit 2; }
work=$(mktemp -d /tmp/weir-memcheck-XXXXXX)
pass=0 fail=0 i=0
for d in tests/sql/*/ examples/sql/*/; do
  [ -f "$d/job.sql" ] || continue
  i=$((i + 1)); [ $(((i - 1) % stride)) -eq 0 ] || continue
  n=$(basename "$d"); w=$work/$n
  mkdir -p "$w"; cp -r "$d/." "$w"; sed -i "s|@WEIR_DIR@|$(dirname "$weir")|g" "$w/job.sql"
  # exit 9: a memcheck error (an error case's own exit is 3)
  (cd "$w" && timeout 600 valgrind -q --error-exitcode=9 --track-origins=yes "$weir" explain job.sql \
     > /dev/null 2> "$work/$n.err")
  if [ $? -eq 9 ]; then
    fail=$((fail + 1)); echo "FAIL $n: $work/$n.err"; grep -m1 -A3 '==[0-9]*== [A-Z]' "$work/$n.err"
  else
    pass=$((pass + 1)); rm -rf "$w" "$work/$n.err"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
