#!/usr/bin/env bash
# tests/data/two_phase_serialised/make.sh WEIR - writes the fixture of
# test_restore_two_phase_serialised: a checkpoint of job.sql taken by WEIR,
# a weir whose two-phase aggregation sent every partial accumulator
# serialised (before "partial rows: columns-1"), on the memory backend:
# the job is killed once its fifth checkpoint is complete (some windows
# fired, others open), and the fixture (aligned/) is the last complete
# checkpoint (ckpt/) and the output folder as the kill left it.
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/weir-two-phase-serialised-XXXXXX)
cp "$HERE/job.sql" "$T/"
cd "$T"
"$WEIR" run job.sql > /dev/null 2> log &
pid=$!
for ((i = 0; i < 1000; i++)); do compgen -G "ckpt/chk-5/_metadata" > /dev/null && break; sleep 0.01; done
kill -9 "$pid" || { echo "the job ended before it was killed"; exit 1; }
wait "$pid" || true
compgen -G "ckpt/chk-*/_metadata" > /dev/null || { cat log; exit 1; }
# the checkpoints begun after the last complete one
last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
for d in ckpt/chk-*; do [ "${d#ckpt/chk-}" -gt "$last" ] && rm -rf "$d"; done
rm -f ckpt/.weir.lock out_win/.weir.lock
cd "$HERE"
rm -rf "${HERE:?}/aligned"
mkdir -p "$HERE/aligned"
cp -r "$T/ckpt" "$T/out_win" "$HERE/aligned/"
rm -rf "$T"
