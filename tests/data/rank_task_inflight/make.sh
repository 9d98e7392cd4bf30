#!/usr/bin/env bash
# tests/data/rank_task_inflight/make.sh WEIR - writes the fixture of
# test_restore_rank_task_inflight with WEIR, a weir that ran a keyed
# operator after a join in a task of its own (before keyed edges were
# chained; 44269ba8 is one), on the memory backend: ckpt/, the first
# complete unaligned checkpoint of job.sql whose task 3 (Rank -> Calc ->
# filesystem) holds in-flight data (checked with `WEIR inspect`), and
# out_top/, the sink's files that checkpoint names as pending (its restore
# commits them; the kill may have found them committed already). The job is killed once such a checkpoint is complete.
set -eu
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/weir-rank-task-inflight-XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$HERE/job.sql" "$T/"
cd "$T"
"$WEIR" explain job.sql | grep -q "^task 3 (parallelism 1): Rank" ||
    { echo "$WEIR does not run the Rank in task 3"; exit 1; }
# rank_inflight CHK: whether CHK's task 3 holds in-flight data
rank_inflight() {
    "$WEIR" inspect "$1" | awk '/^  task / { t3 = ($2 == 3) } t3 && /in-flight data/ { f = 1 } END { exit !f }'
}
"$WEIR" run job.sql -D state.checkpoints.num-retained=1000 > /dev/null 2> log &
pid=$!
got=
for ((i = 0; i < 500; i++)); do
    for m in ckpt/chk-*/_metadata; do
        [ -f "$m" ] || continue
        c=${m%/_metadata}
        rank_inflight "$c" && { got=$c; break; }
    done
    [ -n "$got" ] && break
    sleep 0.01
done
kill -9 "$pid" || { echo "the job ended before it was killed"; exit 1; }
wait "$pid" || true
[ -n "$got" ] || { echo "no checkpoint holds in-flight data of task 3: run make.sh again"; exit 1; }
for d in ckpt/chk-*; do [ "$d" = "$got" ] || rm -rf "$d"; done
rm -f ckpt/.weir.lock out_top/.weir.lock
# only the files the checkpoint names as pending
for f in out_top/* out_top/.*; do
    [ -f "$f" ] || continue
    n=$(basename "$f")
    v=${n#.}
    grep -aqF "${v%.inprogress}" "$got"/t3-s0.snap || rm -f "$f"
done
rm -rf "${HERE:?}/ckpt" "${HERE:?}/out_top"
cp -r ckpt out_top "$HERE/"
du -sk "$HERE/ckpt" "$HERE/out_top"
"$WEIR" inspect "$HERE/$got" | grep -E "^  task|in-flight"
