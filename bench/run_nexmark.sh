#!/usr/bin/env bash
# Runs the Nexmark benchmark: builds bench_nexmark_runner and runs it from
# the repository root, so that it reads bench/nexmark/*.sql.
#
#   bench/run_nexmark.sh [runner options] [QUERY...]
#
# Without QUERY it runs the queries weir can run at benchmark size (the
# others only print why they do not plan: add them by name, or pass "all"). The table goes to
# stdout; the JSON (every run and the medians, labelled with the commit) to
# bench/results/nexmark.json unless --json says otherwise. Examples:
#
#   bench/run_nexmark.sh                                   # 10 M events, p = 1, median of 3
#   bench/run_nexmark.sh --events 1000000 --repeat 1 q0 q5_hop
#   bench/run_nexmark.sh --parallelism 2 --checkpoint-interval 1000 --json /tmp/p2.json
#   bench/run_nexmark.sh --ddl ddl_event.sql q0          # the reference's one-table shape
#
# WEIR_BENCH_BUILD picks the build folder (default: build, the project's
# default RelWithDebInfo build, -O2 -g). See bench_nexmark_runner --help.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEIR_BENCH_BUILD:-$root/build}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_nexmark_runner >/dev/null
cd "$root"

# q15 and q16 run too but slow down as the stream grows, and q4, q7 and q20
# keep every bid in their regular join's state (BENCHMARKS.md):
# name them, with a small --events, to run them. q10 writes every bid into
# partition folders under a temporary folder (about 1.4 GB at 10 M events,
# removed after each run): name it to run it.
runnable=(q0 q1 q2 q3 q5 q5_hop q8 q11 q12 q14 q17 q21 q22)
args=()
queries=0
want_value=0
for a in "$@"; do
  if [ $want_value -eq 1 ]; then
    args+=("$a"); want_value=0; continue
  fi
  case "$a" in
    --dir|--ddl|--events|--tps|--parallelism|--repeat|--checkpoint-interval|--timeout|--json|--label|-D)
      args+=("$a"); want_value=1 ;;
    all) for i in $(seq 0 22); do args+=("q$i"); done; args+=(q5_hop); queries=1 ;;
    q*|topn_*) args+=("$a"); queries=1 ;;
    *) args+=("$a") ;;
  esac
done
if [ $queries -eq 0 ]; then
  args+=("${runnable[@]}")
fi
label=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then
  label="$label-dirty"
fi
mkdir -p bench/results
exec "$build/bench_nexmark_runner" --label "$label" --json bench/results/nexmark.json "${args[@]}"
