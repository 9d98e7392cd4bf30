#!/usr/bin/env bash
# tests/test_s3_files.sh WEIR SOURCE_DIR - the filesystem connector on object
# storage (path = 's3://bucket/prefix'), against s3rver on its own port:
#  1. a randomized differential test (seeded): the same random job (window
#     aggregate, or a filter into a partitioned sink; csv or json in and out;
#     random parallelism, split size, rolling size) runs over local files
#     and over s3:// (source and exactly-once sink, checkpoints on s3://);
#     both outputs equal a python3 oracle's, and no multipart upload is
#     left in progress after the clean end;
#  2. kill -9 at random moments (seeded) of a job reading s3://, writing an
#     exactly-once s3:// sink, checkpointing to s3://; the last run's output
#     equals an uninterrupted run's;
#  3. the server dies while the sink uploads: that checkpoint fails, the job
#     goes on, and its output is whole once the server is back.
#
# WEIR_S3F_SEED replays; WEIR_S3F_CASES (default 2) differential cases,
# WEIR_S3F_KILLS (default 5) kills; WEIR_S3F_RUN_LIMIT (default 240) the
# seconds one weir run on s3:// may take before it is reported as stuck
# (tests/support/watchdog.sh), s3rver started again if it died by itself
# (s3_check). Skipped (exit 0, "SKIP") when s3rver is
# not installed or weir has no object storage.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
SEED=${WEIR_S3F_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
CASES=${WEIR_S3F_CASES:-2}
KILLS=${WEIR_S3F_KILLS:-5}
RANDOM=$SEED
. "$SRC/tests/support/s3_server.sh"
. "$SRC/tests/support/watchdog.sh"
if ! s3_available "$SRC"; then
    echo "SKIP: s3rver is not installed (scripts/install-deps.sh installs it into tests/node)"
    exit 0
fi
echo "test_s3_files: seed $SEED (WEIR_S3F_SEED=$SEED replays it), $CASES cases, $KILLS kills"

T=$(mktemp -d /tmp/weir-s3-files-XXXXXX)
trap 's3_stop; [ -n "${WEIR_S3F_KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $* (seed $SEED)"; [ -f log ] && tail -20 log; exit 1; }
s3_start "$T/s3" fb || fail "cannot start s3rver"
LIMIT=${WEIR_S3F_RUN_LIMIT:-240}
WATCH_TICK=s3_check
S3=(-D s3.endpoint="$S3_ENDPOINT" -D s3.access-key=S3RVER -D s3.secret-key=S3RVER
    -D s3.path.style.access=true -D s3.upload.min.part.size=4096)
# Uploads a local file as s3://fb/KEY.
put() {
    curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$1" "$S3_ENDPOINT/fb/$2" > /dev/null
}
# "folder<TAB>line" for every line of every visible file under DIR (local)
# or s3://fb/DIR (the objects as s3rver keeps them on disk).
local_rows() {
    (cd "$1" && find . -type f ! -name '.*' ! -name '_*' | while read -r f; do
        d=$(dirname "${f#./}"); sed "s|^|$d\t|" "$f"; done) | sort
}
s3_rows() {
    s3_keys "$1" | while read -r k; do
        r=${k#"$1"/}; d=$(dirname "$r")
        case "$(basename "$r")" in .* | _*) continue ;; esac
        sed "s|^|$d\t|" "$S3_DATA/fb/$k._S3rver_object"; done | sort
}
# In-progress multipart uploads s3rver holds (it neither lists nor aborts
# them: ListMultipartUploads and AbortMultipartUpload are not implemented).
uploads() { find "$S3_DATA/fb/._S3rver_uploads" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

# Built with object storage at all?
printf 'CREATE TABLE s (a BIGINT) WITH (%s);\nCREATE TABLE d (a BIGINT) WITH (%s);\nINSERT INTO d SELECT a FROM s;\n' \
    "'connector' = 'filesystem', 'path' = 's3://fb/probe-in', 'format' = 'csv'" \
    "'connector' = 'filesystem', 'path' = 's3://fb/probe', 'format' = 'csv'" > probe.sql
: > log
s3_bounded "$LIMIT" "the probe run" "$WEIR" run probe.sql "${S3[@]}"
[ $? -ne 124 ] || fail "the probe run did not end"
if grep -q "not built into" log; then echo "SKIP: weir built without libcurl"; exit 0; fi

# ---- 1. differential: local files, s3://, and a python3 oracle ----
# gen.py SEED DIR: input files (and the job's parameters, on stdout).
cat > gen.py <<'PY'
import json, os, random, sys
seed, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(seed)
fmt = r.choice(["csv", "json"])
n_files = r.randint(1, 5)
keys = r.randint(2, 9)
base = 1700000000000
i = 0
os.makedirs(os.path.join(d, "sub"), exist_ok=True)
for f in range(n_files):
    name = os.path.join(d, ("sub/" if f % 2 else "") + "f%d.%s" % (f, fmt))
    with open(name, "w") as o:
        for _ in range(r.randint(0, 800)):
            row = (i, "k%d" % r.randrange(keys), r.randint(-1000, 1000),
                   base + r.randint(0, 60000))
            i += 1
            if fmt == "csv":
                o.write("%d,%s,%d,%d\n" % row)
            else:
                o.write(json.dumps(dict(zip(["id", "k", "v", "ts_ms"], row))) + "\n")
with open(os.path.join(d, "_ignored.%s" % fmt), "w") as o:
    o.write("not a record\n")
with open(os.path.join(d, "sub", ".hidden"), "w") as o:
    o.write("not a record\n")
print(fmt, r.choice(["window", "filter"]), r.choice(["csv", "json"]),
      r.randint(1, 3), r.choice(["0", "3kb", "7kb"]),
      r.choice(["6kb", "64kb", "128mb"]), r.choice([1, 2, 5]), r.randint(2, 5))
PY
# oracle.py IN_DIR JOB SIZE_S MOD OUT_FMT: the expected "folder<TAB>row"s
# as parsed values; check.py compares a weir output with them.
cat > oracle.py <<'PY'
import csv, json, os, sys
from datetime import datetime, timezone
d, job, size_s, mod = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = []
for root, dirs, files in os.walk(d):
    for f in files:
        if f.startswith(".") or f.startswith("_"):
            continue
        for line in open(os.path.join(root, f)):
            if f.endswith(".csv"):
                a = line.strip().split(",")
                rows.append((int(a[0]), a[1], int(a[2]), int(a[3])))
            else:
                o = json.loads(line)
                rows.append((o["id"], o["k"], o["v"], o["ts_ms"]))
def ts(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
out = []
if job == "window":
    acc = {}
    w = size_s * 1000
    for _, k, v, t in rows:
        s = t - t % w
        c = acc.setdefault((k, s), [0, 0])
        c[0] += 1
        c[1] += v
    for (k, s), (c, tot) in acc.items():
        out.append(".\t" + "|".join([k, ts(s), ts(s + w), str(c), str(tot)]))
else:
    for i, k, v, t in rows:
        if v % mod != 0:
            out.append("k=%s\t%s" % (k, "|".join([str(i), str(v * 2)])))
for l in sorted(out):
    print(l)
PY
cat > norm.py <<'PY'
# weir's output lines ("folder<TAB>record") as "folder<TAB>a|b|c", timestamps
# cut to seconds (the oracle's form).
import csv, json, re, sys
fmt = sys.argv[1]
out = []
for line in sys.stdin:
    folder, rec = line.rstrip("\n").split("\t", 1)
    if fmt == "csv":
        vals = next(csv.reader([rec]))
    else:
        vals = [str(v) for v in json.loads(rec).values()]
    vals = [re.sub(r"^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?Z?$", r"\1 \2", v) for v in vals]
    out.append(folder + "\t" + "|".join(vals))
for l in sorted(out):
    print(l)
PY
job_sql() { # $1 in path, $2 out path, $3 in fmt, $4 job, $5 out fmt, $6 split, $7 roll, $8 size_s, $9 mod
    local split=""
    [ "$6" = 0 ] || split=", 'source.split-size' = '$6'"
    cat <<SQL
CREATE TABLE src (id BIGINT, k STRING, v BIGINT, ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts - INTERVAL '16:40' MINUTE TO SECOND
) WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = '$3'$split);
SQL
    if [ "$4" = window ]; then cat <<SQL
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), cnt BIGINT, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = '$5', 'sink.rolling-policy.file-size' = '$7');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '$8' SECOND)) GROUP BY k, window_start, window_end;
SQL
    else cat <<SQL
CREATE TABLE dst (id BIGINT, v2 BIGINT, k STRING) PARTITIONED BY (k)
  WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = '$5', 'sink.rolling-policy.file-size' = '$7');
INSERT INTO dst SELECT id, v * 2, k FROM src WHERE MOD(v, $9) <> 0;
SQL
    fi
}
for ((c = 1; c <= CASES; c++)); do
    cseed=$RANDOM
    read -r fmt jb ofmt par split roll size_s mod < <(python3 gen.py "$cseed" "in$c") || fail "gen.py"
    (cd "in$c" && find . -type f) | while read -r f; do put "in$c/$f" "in$c/${f#./}" || exit 1; done ||
        fail "cannot upload the input"
    job_sql "in$c" "out$c" "$fmt" "$jb" "$ofmt" "$split" "$roll" "$size_s" "$mod" > local.sql
    job_sql "s3://fb/in$c" "s3://fb/out$c" "$fmt" "$jb" "$ofmt" "$split" "$roll" "$size_s" "$mod" > s3.sql
    what="case $c ($fmt -> $jb -> $ofmt, parallelism $par, split $split, roll $roll)"
    t0=$(date +%s%N)
    "$WEIR" run local.sql -D parallelism.default="$par" > /dev/null 2> log || fail "$what: the local run failed"
    t1=$(date +%s%N)
    : > log
    s3_bounded "$LIMIT" "$what: the s3:// run" "$WEIR" run s3.sql "${S3[@]}" -D parallelism.default="$par" \
        -D state.checkpoints.dir="s3://fb/ck$c" -D execution.checkpointing.interval=50ms ||
        fail "$what: the s3:// run failed"
    t2=$(date +%s%N)
    python3 oracle.py "in$c" "$jb" "$size_s" "$mod" > want.txt || fail "oracle.py"
    local_rows "out$c" | python3 norm.py "$ofmt" > got-local.txt || fail "$what: cannot read the local output"
    s3_rows "out$c" | python3 norm.py "$ofmt" > got-s3.txt || fail "$what: cannot read the s3:// output"
    [ -s want.txt ] || [ ! -s got-local.txt ] || fail "$what: output from no input"
    cmp -s want.txt got-local.txt || { diff want.txt got-local.txt | head -5; fail "$what: local output differs from the oracle"; }
    cmp -s want.txt got-s3.txt || { diff want.txt got-s3.txt | head -5; fail "$what: s3:// output differs from the oracle"; }
    [ "$(uploads)" -eq 0 ] || fail "$what: $(uploads) multipart uploads left in progress after a clean end"
    echo "  $what: $(wc -l < want.txt) rows equal the oracle's, locally and on s3:// (runs $(( (t1 - t0) / 1000000 )) ms, $(( (t2 - t1) / 1000000 )) ms)"
done

echo "  ($(( SECONDS )) s so far)"
# ---- 2. kill -9 loops: s3:// source, exactly-once s3:// sink, checkpoints on s3:// ----
python3 - > /dev/null <<'PY'
import os, random
r = random.Random(11)
os.makedirs("big", exist_ok=True)
i = 0
for f in range(8):
    with open("big/p%02d.csv" % f, "w") as o:
        for _ in range(3000):
            o.write("%d,k%d,%d,%d\n" % (i, r.randrange(50), r.randint(0, 999), 1700000000000 + i * 7 + r.randint(0, 500)))
            i += 1
PY
for f in big/*.csv; do put "$f" "$f" || fail "cannot upload $f"; done
kill_sql() { # $1 in, $2 out
    cat <<SQL
CREATE TABLE src (id BIGINT, k STRING, v BIGINT, ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts - INTERVAL '16:40' MINUTE TO SECOND
) WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'csv', 'source.split-size' = '24kb');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), cnt BIGINT, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'csv', 'sink.rolling-policy.file-size' = '8kb');
INSERT INTO dst SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end;
SQL
}
kill_sql big refout > ref.sql
"$WEIR" run ref.sql -D parallelism.default=2 > /dev/null 2> log || fail "the reference run failed"
local_rows refout > ref.txt
[ -s ref.txt ] || fail "the reference run wrote nothing"
# A run that ends before its kill (a quiet machine reads the input fast)
# has its output checked and the job starts over under new prefixes, so
# the kills keep landing mid-input.
round=1
set_round() {
    kill_sql s3://fb/big "s3://fb/kout$round" > kill.sql
    CK=(-D "state.checkpoints.dir=s3://fb/kck$round" -D execution.checkpointing.interval=100ms -D parallelism.default=2)
}
check_round() {
    s3_rows "kout$round" > got.txt
    cmp -s ref.txt got.txt || { diff ref.txt got.txt | head -5; fail "output of round $round after $kills kills differs"; }
}
set_round
last_chk() { s3_keys "kck$round" | sed -n 's,.*/chk-\([0-9]*\)/_metadata$,\1,p' | sort -n | tail -1 | grep . || echo 0; }
kills=0
rm -f log
for ((i = 1; kills < KILLS && i <= 4 * KILLS; i++)); do
    delay=$(( RANDOM % 300 ))
    before=$(last_chk) crashes=$S3_CRASHES
    "$WEIR" run kill.sql "${S3[@]}" "${CK[@]}" > /dev/null 2>> log &
    pid=$!
    for ((w = 0; w < 1000; w++)); do
        [ "$(last_chk)" -gt "$before" ] && break
        kill -0 "$pid" 2> /dev/null || break
        s3_check
        sleep 0.02
    done
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    st=$?
    if [ $st -eq 137 ]; then kills=$((kills + 1))
    elif [ $st -eq 0 ]; then check_round; round=$((round + 1)); set_round
    elif s3_check && [ "$S3_CRASHES" -gt "$crashes" ]; then
        echo "  note: kill loop: attempt $i failed (status $st) while s3rver was down"
    else fail "kill loop: attempt $i exited $st"; fi
done
s3_bounded "$LIMIT" "the kill loop's last run" "$WEIR" run kill.sql "${S3[@]}" "${CK[@]}" ||
    fail "the last run failed"
check_round
[ "$kills" -ge 1 ] || fail "no kill landed before the job ended"
grep -q "restoring from checkpoint chk-" log || fail "no run restored a checkpoint"
# What a killed run had in progress (not covered by a checkpoint) stays
# with s3rver, which cannot list or abort uploads; none of them may be of
# an object that is visible (a committed file is never also in progress).
left=$(uploads)
for u in "$S3_DATA"/fb/._S3rver_uploads/*/key; do
    [ -f "$u" ] || continue
    [ ! -f "$S3_DATA/fb/$(cat "$u")._S3rver_object" ] || fail "upload of committed $(cat "$u") still in progress"
done
echo "  $kills kills in $round rounds: output equals the uninterrupted run's ($(wc -l < ref.txt) rows); $left uploads of killed runs left in progress (s3rver cannot abort them)"

echo "  ($(( SECONDS )) s so far)"
# ---- 3. the server dies while the sink uploads ----
# (the input lasts 7.5 s: the job must still be running when the server is
# back, which takes seconds on a loaded machine; at 3 s a CI run once ended
# first and failed its last upload)
cat > fault.sql <<'SQL'
CREATE TABLE src (g BIGINT, ts AS TO_TIMESTAMP_LTZ(1700000000000 + g, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.1' SECOND
) WITH ('connector' = 'datagen', 'fields.g.kind' = 'sequence', 'fields.g.start' = '0',
        'fields.g.end' = '59999', 'rows-per-second' = '8000');
CREATE TABLE dst (g BIGINT, h BIGINT) WITH ('connector' = 'filesystem', 'path' = 'PATH', 'format' = 'csv');
INSERT INTO dst SELECT g, g * 7 FROM src;
SQL
sed "s|PATH|fref|" fault.sql > fref.sql
"$WEIR" run fref.sql > /dev/null 2> log || fail "the fault reference run failed"
local_rows fref > fref.txt
sed "s|PATH|s3://fb/fout|" fault.sql > f3.sql
"$WEIR" run f3.sql "${S3[@]}" -D s3.max-error-retries=1 -D state.checkpoints.dir=fck \
    -D execution.checkpointing.interval=100ms > /dev/null 2> log &
pid=$!
for ((i = 0; i < 400; i++)); do [ -n "$(s3_keys fout)" ] && break; sleep 0.02; done
[ -n "$(s3_keys fout)" ] || { kill -9 $pid; fail "the sink committed nothing"; }
s3_kill
for ((i = 0; i < 600; i++)); do grep -q "checkpoint [0-9]* failed" log && break; sleep 0.02; done
grep -q "checkpoint [0-9]* failed" log || { kill -0 $pid 2> /dev/null && st=running || st=ended; kill -9 $pid; fail "no checkpoint failed while the server was down (the job had $st)"; }
failed=$(sed -n 's/.*checkpoint \([0-9]*\) failed.*/\1/p' log | head -1)
kill -0 "$pid" 2> /dev/null || fail "the job did not go on after checkpoint $failed failed"
s3_restart || fail "cannot restart s3rver"
watch_pid "$pid" "$LIMIT" "the job after the server came back" || fail "the job failed after the server came back"
s3_rows fout > fgot.txt
cmp -s fref.txt fgot.txt || { diff fref.txt fgot.txt | head -5; fail "output differs after a failed upload"; }
echo "  server killed during uploads: checkpoint $failed failed, the job went on, output whole ($(wc -l < fref.txt) rows)"
echo "test_s3_files: passed"
