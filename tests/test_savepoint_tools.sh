#!/usr/bin/env bash
# weir savepoint-tool: list the operators of a savepoint; rename an
# operator's id so that a reshaped job takes its state over (the window in
# progress at the savepoint comes out whole); drop an operator's state so
# that a job without it restores with no --allow-non-restored-state. The
# input savepoint is never changed. Synchronises on the registry and files.
# Usage: test_savepoint_tools.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pass=0
fail=0
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
export WEIR_REGISTRY_DIR=$work/reg
cd "$work" || exit 1
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
wait_listed() {
  for _ in $(seq 1 300); do
    "$weir" list 2>/dev/null | awk 'NR > 1 {print $2}' | grep -qx "$1" && return 0
    sleep 0.05
  done
  return 1
}
# Output until a line matches: bounded poll on the output file.
wait_line() { # file pattern
  for _ in $(seq 1 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}
# One row per event-time millisecond: every 1 s window holds 1000 rows.
SRC="CREATE TABLE g (id BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'rows-per-second' = '3000', 'fields.ms.kind' = 'sequence',
      'fields.ms.start' = '0', 'fields.ms.end' = '100000000');
CREATE TABLE o (w TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'o');"
WIN="INSERT INTO o SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;"
printf "SET 'pipeline.name' = 'sp-a';\n%s\n%s\n" "$SRC" "$WIN" >a.sql
# The reshaped job: a new 2 s window comes first, so the 1 s window's id
# is now 'tumbling window[1]'.
printf "SET 'pipeline.name' = 'sp-b';\n%s\n%s\n%s\n" "$SRC" \
  "CREATE TABLE o2 (w TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'o2');
INSERT INTO o2 SELECT window_start, MAX(id) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;" "$WIN" >b.sql
# A job without the window.
printf "SET 'pipeline.name' = 'sp-c';\n%s\n%s\n" "$SRC" "INSERT INTO o SELECT TO_TIMESTAMP_LTZ(ms, 3), ms FROM g;" >c.sql

"$weir" run a.sql -D state.checkpoints.dir=ck-a -D state.savepoints.dir=sp >a.out 2>a.err &
apid=$!; pids+=("$apid")
wait_listed sp-a
wait_line a.out "00:00:01, 1000"  # a window has fired
sp=$("$weir" savepoint sp-a --stop)
wait "$apid"
check "the savepoint was taken" test -f "$sp/_metadata"
pos=$("$weir" inspect "$sp" | sed -n 's/.*source split.*position \([0-9]*\).*/\1/p')
check "the savepoint has a source position" test -n "$pos"
inprog=$((pos / 1000)) # the window in progress: its rows before the savepoint are state
before=$(cd "$sp" && md5sum * | md5sum)

"$weir" savepoint-tool list "$sp" >list.out; rc=$?
check "list exits 0" test $rc -eq 0
check "list names the window's id" grep -q "^operator id 'tumbling window\[0\]': tumbling window" list.out
check "list shows its fingerprint" grep -q "fingerprint  size: 1000 ms" list.out
check "list shows its keyed state" grep -Eq "key groups \[0, 127\] \([0-9]+ with state\): keyed state [1-9]" list.out
check "list names the source's id" grep -q "^operator id 'datagen\[0\]'" list.out

# Without a rewrite, the reshaped job refuses the savepoint.
"$weir" run b.sql -D state.checkpoints.dir=ck-b0 --from "$sp" >/dev/null 2>b0.err; rc=$?
check "the reshaped job refuses the savepoint" test $rc -ne 0
check "it names the changed window" grep -q "tumbling window\[0\]: .*size 1000 ms in the checkpoint, 2000 ms now" b0.err

# rename: the 1 s window's state goes to 'tumbling window[1]'.
"$weir" savepoint-tool rename "$sp" 'tumbling window[0]' 'tumbling window[1]' --out renamed >rn.out 2>rn.err; rc=$?
check "rename exits 0" test $rc -eq 0
check "rename prints the new path" grep -qx renamed rn.out
"$weir" run b.sql -D state.checkpoints.dir=ck-b --from renamed >b.out 2>b.err &
bpid=$!; pids+=("$bpid")
wait_listed sp-b
check "the reshaped job restored" grep -q "restoring from savepoint" b.err
wait_line b.out "^o> "
"$weir" stop sp-b; wait "$bpid"
first=$(grep -m1 "^o> " b.out)
want=$(printf "o> +I[1970-01-01T00:00:%02d, 1000]" "$inprog")
check "the renamed window's state was restored: '$first' is '$want'" test "$first" = "$want"
check "the new window started empty" grep -q "tumbling window\[0\] is not in" b.err

# drop: a job without the window restores with no flag.
"$weir" run c.sql -D state.checkpoints.dir=ck-c0 --from "$sp" >/dev/null 2>c0.err; rc=$?
check "without the drop the job refuses it" grep -q "tumbling window\[0\]: in the checkpoint, not in the job" c0.err
"$weir" savepoint-tool drop "$sp" 'tumbling window[0]' --out dropped >/dev/null 2>dr.err; rc=$?
check "drop exits 0" test $rc -eq 0
"$weir" savepoint-tool list dropped >list2.out
check "the dropped operator is gone" bash -c "! grep -q 'tumbling window' list2.out"
"$weir" run c.sql -D state.checkpoints.dir=ck-c --from dropped >c.out 2>c.err &
cpid=$!; pids+=("$cpid")
wait_listed sp-c
wait_line c.out "^o> "
"$weir" stop sp-c; wait "$cpid"
check "the job without the window restored from the dropped savepoint" grep -q "restoring from savepoint" c.err
first=$(grep -m1 "^o> " c.out | sed 's/.*, \([0-9]*\)\]/\1/')
check "it resumed at the savepoint's source position ($first = $pos)" test "$first" = "$pos"

# Errors, and the input is untouched.
"$weir" savepoint-tool rename "$sp" nosuch x --out r2 >/dev/null 2>err; rc=$?
check "an unknown id fails" test $rc -eq 1
check "an unknown id lists the ids" grep -q "its operator ids: 'datagen\[0\]', 'tumbling window\[0\]'" err
"$weir" savepoint-tool drop "$sp" 'datagen[0]' --out renamed >/dev/null 2>err; rc=$?
check "an existing output folder is refused" grep -q "renamed exists already" err
"$weir" savepoint-tool drop "$sp" 'datagen[0]' >/dev/null 2>err; rc=$?
check "--out is required" test $rc -eq 2
"$weir" savepoint-tool list "$work/none" >/dev/null 2>err; rc=$?
check "a missing path is named" grep -q "none: no such savepoint or checkpoint: the path is missing" err
check "the input savepoint is unchanged" test "$(cd "$sp" && md5sum * | md5sum)" = "$before"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
