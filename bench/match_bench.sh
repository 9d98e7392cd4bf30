#!/usr/bin/env bash
# bench/match_bench.sh WEIR [WEIR...] - MATCH_RECOGNIZE with long undecided
# matches: events per CPU-second (user + system time of `weir run`, median
# of ROUNDS runs, binaries alternated within each round).
#
# The input: EVENTS rows over KEYS partition keys, one row per millisecond,
# keys round-robin; per key, runs of SEG - 1 rows with v > 0, then one row
# with v < 0. PATTERN (A+ B) DEFINE A AS A.v > 0, B AS B.v < 0: every match
# stays undecided until its B comes (SEG - 1 rows later). Each SEG in SEGS
# is one line of output per binary. EVENTS / KEYS should be a multiple of
# SEG: otherwise each key ends with an undecided run that fails at the end
# of the input, and each of its rows starts again over the rest of it
# (quadratic in its length, as the SQL standard's order of starts asks).
# Environment: EVENTS (96000), KEYS (4), SEGS ("10 1000 4000"), ROUNDS (3).
set -eu
EVENTS=${EVENTS:-96000}
KEYS=${KEYS:-4}
SEGS=${SEGS:-"10 1000 4000"}
ROUNDS=${ROUNDS:-3}
T=$(mktemp -d /tmp/weir-match-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
bins=()
for b in "$@"; do bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"); done
for seg in $SEGS; do
    python3 - "$EVENTS" "$KEYS" "$seg" > "$T/in.csv" <<'PY'
import sys
n, keys, seg = map(int, sys.argv[1:4])
for i in range(n):
    k = i % keys
    j = i // keys
    v = -1 if j % seg == seg - 1 else 1 + j % 7
    t = 1_700_000_000_000 + i
    print("%d,k%d,%d,%d" % (i, k, v, t))
PY
    cat > "$T/job.sql" <<SQL
CREATE TABLE t (id BIGINT, k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '$T/in.csv', 'format' = 'csv');
CREATE TABLE out (k STRING, n BIGINT, s INT, l INT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts
  MEASURES COUNT(A.*) AS n, SUM(A.v) AS s, LAST(A.v) AS l
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS A.v > 0, B AS B.v < 0);
SQL
    python3 - "$EVENTS" "$seg" "$ROUNDS" "$T/job.sql" "${bins[@]}" <<'PY'
import os, resource, statistics, subprocess, sys
events, seg, rounds, job = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
bins = sys.argv[5:]
cpu = {b: [] for b in bins}
for _ in range(rounds):
    for b in bins:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([b, "run", job], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode:
            print("%s failed: %s" % (b, p.stderr.strip().splitlines()[-1]))
            cpu[b].append(float("nan"))
            continue
        cpu[b].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
for b in bins:
    med = statistics.median(cpu[b])
    print("segment %6s rows  %-45s  %8.2f s CPU (median of %d)  %10.0f events/CPU-s"
          % (seg, b, med, rounds, events / med if med == med and med > 0 else 0))
PY
done
