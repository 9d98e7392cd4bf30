#!/usr/bin/env bash
# bench/many_cores.sh - the scaling benchmarks of one binary at several
# parallelisms in one go, for a machine with more cores than the 2 of the
# development machines: Nexmark q0 q1 q2 q5 q8 q11 (bench_nexmark_runner),
# the synthetic keyed TUMBLE and HOP jobs over datagen and over one JSON
# file read in byte ranges (scale_bench.sh), and the skewed aggregations
# (skew_bench.sh).
#
#   bash bench/many_cores.sh [-p PARALLELISMS] [-n NEXMARK_EVENTS]
#        [-e SCALE_EVENTS] [-J JSON_EVENTS] [-k SKEW_EVENTS] [-r ROUNDS]
#        [-o OUTDIR] [-s PARTS] WEIR RUNNER
#
#   PARALLELISMS  comma-separated (default 1,2,4,8,16); none above nproc
#   PARTS         comma-separated subset of nexmark,datagen,json,skew (all)
#   OUTDIR        where each part's full output goes (default: a temporary
#                 folder, removed); the summary is printed either way
#
# Each part prints its own medians; this script adds, per part, the
# wall-clock speed-up of every parallelism over the first and the CPU
# efficiency (CPU per event at the first parallelism over CPU per event at
# this one). Wall-clock figures need as many idle cores as the highest
# parallelism (a Nexmark job at parallelism p runs p threads per operator
# chain, and a few more for the source and the sink).
set -euo pipefail
PARS=1,2,4,8,16
NEX_EVENTS=16000000
SCALE_EVENTS=40000000
JSON_EVENTS=10000000
SKEW_EVENTS=5000000
ROUNDS=3
OUTDIR=
PARTS=nexmark,datagen,json,skew
while getopts p:n:e:J:k:r:o:s: o; do
    case $o in
    p) PARS=$OPTARG ;;
    n) NEX_EVENTS=$OPTARG ;;
    e) SCALE_EVENTS=$OPTARG ;;
    J) JSON_EVENTS=$OPTARG ;;
    k) SKEW_EVENTS=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    s) PARTS=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
WEIR=${1:?usage: many_cores.sh [options] WEIR RUNNER}
RUNNER=${2:?usage: many_cores.sh [options] WEIR RUNNER}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "$OUTDIR" ]; then
    OUTDIR=$(mktemp -d)
    trap 'rm -rf "$OUTDIR"' EXIT
fi
mkdir -p "$OUTDIR"
IFS=, read -r -a parlist <<<"$PARS"
has() { [[ ,$PARTS, == *,$1,* ]]; }

echo "# $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

if has nexmark; then
    for p in "${parlist[@]}"; do
        "$RUNNER" --dir "$HERE/nexmark" --events "$NEX_EVENTS" --repeat "$ROUNDS" --parallelism "$p" \
            q0 q1 q2 q5 q8 q11 >"$OUTDIR/nexmark-p$p.txt" 2>&1
    done
    echo "# Nexmark, $NEX_EVENTS events, median of $ROUNDS: wall s, events/s, events/s per core;"
    echo "# speed-up = wall at p=${parlist[0]} / wall at p; efficiency = per-core rate at p / at p=${parlist[0]}"
    for q in q0 q1 q2 q5 q8 q11; do
        base=$(awk -v q="$q" '$1 == q { print $3, $6 }' "$OUTDIR/nexmark-p${parlist[0]}.txt")
        for p in "${parlist[@]}"; do
            awk -v q="$q" -v p="$p" -v base="$base" '$1 == q {
                split(base, b, " ");
                printf "nexmark %-4s p=%-2s wall_s=%s events/s=%s per_core=%s speed-up=%.2f efficiency=%.2f rows=%s\n",
                    q, p, $3, $4, $6, b[1] / $3, $6 / b[2], $8 }' "$OUTDIR/nexmark-p$p.txt"
        done
    done
fi

scale_summary() { # $1: scale_bench output; prints speed-ups per job
    awk -v p0="${parlist[0]}" '
        /^[a-z]+-[a-z]+ p=[0-9]+ bin=0 / {
            split($2, pp, "="); split($4, n, "="); split($5, w, "=")
            job = $1; jobs[job] = 1; ns[job, pp[2]] = n[2]; wall[job, pp[2]] = w[2]; order[++k] = job SUBSEP pp[2]
        }
        END {
            for (i = 1; i <= k; i++) {
                split(order[i], jp, SUBSEP); j = jp[1]; p = jp[2]
                printf "%-15s p=%-2s wall_s=%s ns_per_event=%s speed-up=%.2f efficiency=%.2f\n",
                    j, p, wall[j, p], ns[j, p], wall[j, p0] / wall[j, p], ns[j, p0] / ns[j, p]
            }
        }' "$1"
}

if has datagen; then
    bash "$HERE/scale_bench.sh" -e "$SCALE_EVENTS" -r "$ROUNDS" -p "$PARS" -j tumble-datagen,hop-datagen \
        "$WEIR" >"$OUTDIR/datagen.txt" 2>&1
    echo "# synthetic keyed windows over datagen, $SCALE_EVENTS events, median of $ROUNDS"
    scale_summary "$OUTDIR/datagen.txt"
fi
if has json; then
    bash "$HERE/scale_bench.sh" -e "$JSON_EVENTS" -r "$ROUNDS" -p "$PARS" -j tumble-json,hop-json \
        "$WEIR" >"$OUTDIR/json.txt" 2>&1
    echo "# synthetic keyed windows over one JSON file (one byte range per subtask), $JSON_EVENTS events, median of $ROUNDS"
    scale_summary "$OUTDIR/json.txt"
fi
if has skew; then
    bash "$HERE/skew_bench.sh" -e "$SKEW_EVENTS" -r "$ROUNDS" -p "$PARS" -j tumble,group,distinct \
        "$WEIR" >"$OUTDIR/skew.txt" 2>&1
    echo "# skewed aggregations (one key carries half of the events), $SKEW_EVENTS events, median of $ROUNDS"
    grep -E '^[a-z]+ p=|speed-up' "$OUTDIR/skew.txt"
fi
