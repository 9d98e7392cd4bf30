#!/usr/bin/env bash
# tests/data/two_phase_serialised/make.sh WEIR - writes the fixtures of
# test_restore_two_phase_serialised with WEIR, a weir whose two-phase
# aggregation sent every partial accumulator serialised (before "partial
# rows: columns-1"), on the memory backend: aligned/, a checkpoint of
# job.sql - the job is killed once its fifth checkpoint is complete (some
# windows fired, others open) - and the output folder as the kill left it;
# unaligned/, a checkpoint of job_unaligned.sql taken after 3 s, which
# holds partial rows in flight (checked with `WEIR inspect`).
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
# only the last complete checkpoint (an older one may be half removed)
last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
for d in ckpt/chk-*; do [ "${d#ckpt/chk-}" != "$last" ] && rm -rf "$d"; done
rm -f ckpt/.weir.lock out_win/.weir.lock
cd "$HERE"
rm -rf "${HERE:?}/aligned"
mkdir -p "$HERE/aligned"
cp -r "$T/ckpt" "$T/out_win" "$HERE/aligned/"
rm -rf "$T"

# unaligned/: the last complete checkpoint after 3 s, if it holds in-flight data
T=$(mktemp -d /tmp/weir-two-phase-serialised-XXXXXX)
cp "$HERE/job_unaligned.sql" "$T/"
cd "$T"
"$WEIR" run job_unaligned.sql > /dev/null 2> log &
pid=$!
sleep 3
kill -9 "$pid" || { echo "the unaligned job ended before it was killed"; exit 1; }
wait "$pid" || true
last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
for d in ckpt/chk-*; do [ "${d#ckpt/chk-}" != "$last" ] && rm -rf "$d"; done # only the last one
rm -f ckpt/.weir.lock
"$WEIR" inspect "ckpt/chk-$last" | grep -q "in-flight data (unaligned checkpoint): [1-9]" ||
    { echo "chk-$last holds no in-flight data: run make.sh again"; exit 1; }
cd "$HERE"
rm -rf "${HERE:?}/unaligned"
mkdir -p "$HERE/unaligned"
cp -r "$T/ckpt" "$HERE/unaligned/"
rm -rf "$T"
