#!/usr/bin/env bash
# bench/s3_bench.sh [BUILD_DIR] [MB] [REPS] - checkpoint upload and restore
# throughput to a local S3 server (s3rver, tests/node), weir's object
# storage (bench_s3_bench: multipart upload from disk, ranged GETs) against
# curl moving the same bytes (one PUT, one GET) in the same run; medians of
# REPS (default 3) runs each.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
MB=${2:-64}
REPS=${3:-3}
. "$SRC/tests/support/s3_server.sh"
s3_available "$SRC" || { echo "s3rver is not installed (scripts/install-deps.sh)"; exit 2; }
T=$(mktemp -d /tmp/weir-s3-bench-XXXXXX)
trap 's3_stop; rm -rf "$T"' EXIT
s3_start "$T/s3" bench
head -c $((MB * 1024 * 1024)) /dev/urandom > "$T/state.sst"
"$BUILD/bench_s3_bench" "$S3_ENDPOINT" s3://bench/ckpt "$T/state.sst" "$REPS"
ups=() downs=()
for ((r = 0; r < REPS; r++)); do
    u=$(curl -s -o /dev/null -w '%{speed_upload}' -H 'Expect:' -T "$T/state.sst" \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
        "$S3_ENDPOINT/bench/curl/state-$r.sst")
    d=$(curl -s -o "$T/back" -w '%{speed_download}' \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
        "$S3_ENDPOINT/bench/curl/state-$r.sst")
    cmp -s "$T/back" "$T/state.sst" || { echo "curl read back other bytes"; exit 1; }
    ups+=("$u") downs+=("$d")
    awk -v u="$u" -v d="$d" -v r="$r" 'BEGIN { printf "curl rep %d: upload %.1f MB/s, restore %.1f MB/s\n", r, u / 1e6, d / 1e6 }'
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1e6 }'; }
echo "curl $MB MiB: upload median $(med "${ups[@]}") MB/s, restore median $(med "${downs[@]}") MB/s"
