#!/usr/bin/env bash
# tests/data/rank_ttl_whole_rows/make.sh WEIR - writes the fixture of
# test_sql_proctime's Top-N TTL restore: a checkpoint (ckpt/) of job.sql
# taken by WEIR, a weir that keeps every Top-N row whole (before "rank
# rows: 2"), on the memory backend; the job is killed once its first
# checkpoint is complete. Beside it, taken: the wall clock (ms) before the
# job started and after it was killed (every TTL stamp in the checkpoint
# lies between them), and the source's position in the checkpoint (the id
# its next row has).
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/weir-rank-ttl-XXXXXX)
cp "$HERE/job.sql" "$T/"
cd "$T"
from=$(date +%s%3N)
"$WEIR" run job.sql -D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms > /dev/null 2> log &
pid=$!
for ((i = 0; i < 1000; i++)); do compgen -G "ckpt/chk-*/_metadata" > /dev/null && break; sleep 0.01; done
kill -9 "$pid" || { echo "the job ended before it was killed"; exit 1; }
wait "$pid" || true
to=$(date +%s%3N)
compgen -G "ckpt/chk-*/_metadata" > /dev/null || { cat log; exit 1; }
last=$(ls -d ckpt/chk-*/_metadata | sed 's/.*chk-\([0-9]*\).*/\1/' | sort -n | tail -1)
for d in ckpt/chk-*; do [ "${d#ckpt/chk-}" -eq "$last" ] || rm -rf "$d"; done
rm -f ckpt/.weir.lock
pos=$("$WEIR" inspect "ckpt/chk-$last" | sed -n 's/.*source split datagen-0-of-1: position \([0-9]*\).*/\1/p')
[ -n "$pos" ] || { echo "no source position in the checkpoint"; exit 1; }
rm -rf "${HERE:?}/ckpt"
cp -r ckpt "$HERE/"
echo "$from $to $pos" > "$HERE/taken"
cd "$HERE"
rm -rf "$T"
cat "$HERE/taken"
