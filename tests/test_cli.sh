#!/usr/bin/env bash
# The weir command: help, exit codes, -D, explain, and the status line that
# `weir run` shows when stderr is a terminal.
# Usage: test_cli.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
src=$2
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}

"$weir" --help >"$work/out" 2>&1; rc=$?
check "help exits 0" test $rc -eq 0
check "help lists run" grep -q "run JOB.sql" "$work/out"
for c in run explain checkpoints inspect stop; do
  "$weir" $c --help >"$work/out" 2>&1; rc=$?
  check "$c --help" test $rc -eq 0 -a -s "$work/out"
done
"$weir" frobnicate >/dev/null 2>&1; check "unknown command exits 2" test $? -eq 2
"$weir" run >/dev/null 2>&1; check "run without a file exits 2" test $? -eq 2
"$weir" run "$work/none.sql" >/dev/null 2>&1; check "missing file exits 4" test $? -eq 4
"$weir" run -D nokey "$work/none.sql" >/dev/null 2>&1; check "bad -D exits 2" test $? -eq 2
"$weir" stop notapid >/dev/null 2>&1; check "stop of a job that is not running exits 5" test $? -eq 5
"$weir" stop 1 --soon >/dev/null 2>&1; check "stop with a bad option exits 2" test $? -eq 2

cat >"$work/job.sql" <<'SQL'
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100');
CREATE TABLE o (n BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT COUNT(*), SUM(id) FROM g;
SQL
out=$("$weir" run "$work/job.sql" 2>&1); rc=$?
check "run exits 0" test $rc -eq 0
check "run prints the final count" grep -qF "+U[100, 5050]" <<<"$out"
"$weir" explain "$work/job.sql" -D parallelism.default=3 >"$work/out" 2>&1
check "explain honours -D" grep -q "parallelism 3" "$work/out"
check "explain shows the exchange" grep -q "GLOBAL" "$work/out"

# a failing job exits 1 with the message
printf '{"id": 1}\n{"id": oops}\n' >"$work/bad.json"
cat >"$work/bad.sql" <<SQL
CREATE TABLE t (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '$work/bad.json', 'format' = 'json');
SELECT id FROM t;
SQL
"$weir" run "$work/bad.sql" >/dev/null 2>"$work/err"; rc=$?
check "bad input fails the job with exit 1" test $rc -eq 1
check "bad input message names file, line and column" grep -q "bad.json:2:" "$work/err"

# The status line, when stderr is a terminal (a pseudo-terminal made here),
# on an unbounded job; SIGINT then stops the job cleanly (exit 0).
cat >"$work/slow.sql" <<'SQL'
CREATE TABLE g (id BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
      'fields.ms.kind' = 'sequence', 'fields.ms.start' = '1700000000000', 'fields.ms.end' = '1800000000000');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM g;
SQL
python3 - "$weir" "$work/slow.sql" >"$work/tty" <<'PY'
import os, select, signal, subprocess, sys, time
master, slave = os.openpty()
p = subprocess.Popen([sys.argv[1], "run", sys.argv[2]], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out, deadline = b"", time.time() + 30  # a guard against a hang, not a wait for time to pass
while b"behind the newest event" not in out and time.time() < deadline:
    r, _, _ = select.select([master], [], [], 1.0)
    if r:
        try:
            out += os.read(master, 4096)
        except OSError:
            break
p.send_signal(signal.SIGINT)
# The rest, up to the end: the stop's log lines and the summary.
deadline = time.time() + 30
while time.time() < deadline:
    r, _, _ = select.select([master], [], [], 1.0)
    if r:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    elif p.poll() is not None:
        break
rc = p.wait(timeout=30)
sys.stdout.write(out.decode(errors="replace") + "\nexit=%d\n" % rc)
PY
check "status line shows rows and the watermark" grep -q "rows/s  watermark 2023-11-14" "$work/tty"
check "status line shows how far the watermark trails" grep -q "5.0 s behind the newest event" "$work/tty"
check "SIGINT stops an unbounded job with exit 130" grep -q "^exit=130" "$work/tty"
# A log line first erases the status line, is printed once, on a line of
# its own, and the status line comes back under it.
check "the stop's log line is printed once" test "$(grep -c 'SIGINT: stopping' "$work/tty")" -eq 1
check "a log line starts on an erased line" \
  python3 -c 'import re,sys; sys.exit(not re.search(r"\r\x1b\[K\d{4}-\d\d-\d\dT[\d:.]+Z INFO  SIGINT: stopping[^\r\n]*\r?\n", open(sys.argv[1], newline="").read()))' "$work/tty"
check "the summary is printed once" test "$(grep -c 'summary: source datagen' "$work/tty")" -eq 1
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
