# tests/support/crash.sh - the frame the kill -9 and savepoint tests of
# `weir run` share (tests/test_crash_sql*.sh, test_versioned_view_restore,
# test_restore_compat, test_topn_restore): sourced, never run. A crash test is
#
#   . "$2/tests/support/crash.sh"
#   crash_init NAME "$1" ROWS ASAN_ROWS   # sets WEIR SEED ROWS, cds to $T
#   KILLS=${WEIR_CRASH_X_KILLS:-4}
#   ... write in.csv and job.sql, define visible() ...
#   crash_timed "$WEIR" run job.sql ...   || fail "the reference run failed"
#   crash_kill_loop "$KILLS" "$WEIR" run job.sql "${CK[@]}"
#   "$WEIR" run job.sql "${CK[@]}"        || fail "the last run failed"
#
# WEIR_CRASH_SEED replays a kill schedule (every delay comes from $RANDOM,
# seeded here); WEIR_CRASH_ROWS sets the input's size. Under
# AddressSanitizer (a weir linked with libasan) the smaller default applies.

# crash_init NAME WEIR ROWS ASAN_ROWS: WEIR (absolute), SEED, ROWS; a fresh
# folder T, removed on exit, as the working directory; fail().
crash_init() {
    CRASH_NAME=$1
    WEIR=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
    SEED=${WEIR_CRASH_SEED:-${WEIR_SEED:-$(( $(date +%s) % 100000 + $$ ))}}
    ROWS=${WEIR_CRASH_ROWS:-$3}
    if ldd "$WEIR" 2>/dev/null | grep -q libasan; then ROWS=${WEIR_CRASH_ROWS:-$4}; fi
    RANDOM=$SEED
    T=$(mktemp -d "/tmp/weir-$CRASH_NAME-XXXXXX")
    trap 'rm -rf "$T"' EXIT
    cd "$T" || exit 1
}

# restore_init NAME WEIR: for a test that stops a job it starts in the
# background (its pid in $pid) and restores it: WEIR (absolute); a fresh
# folder T as the working directory; on exit the job, if still running, is
# killed and T removed; fail().
restore_init() {
    WEIR=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
    T=$(mktemp -d "/tmp/weir-$1-XXXXXX")
    pid=
    trap '[ -n "$pid" ] && kill -9 "$pid" 2> /dev/null; rm -rf "$T"' EXIT
    cd "$T" || exit 1
}

# stop_run SIGNAL: sends SIGNAL to the job started in the background ($pid),
# waits up to 30 s for it to end (then SIGKILL), sets st to its exit status
# and clears pid.
stop_run() {
    kill -s "$1" "$pid" 2> /dev/null
    for ((i = 0; i < 600; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2> /dev/null
    wait "$pid"
    st=$?
    pid=
}

# fold DIR: the table a debezium-json changelog in DIR leaves (a create
# adds the "after" row, a delete takes the "before" row away; the files of
# a folder come in no particular order, so a row may go negative on the
# way, never at the end). Needs jq.
fold() {
    find "$1" -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null |
      jq -rc 'if .op == "d" then "-\(.before)" elif .op == "c" then "+\(.after)" else "?" end' |
      awk '/^\?/ { print "bad op"; exit 1 }
           { r = substr($0, 2); if (substr($0, 1, 1) == "+") n[r]++; else n[r]-- }
           END { for (r in n) { if (n[r] < 0) print "retracts absent " r; for (i = 0; i < n[r]; i++) print r } }' |
      LC_ALL=C sort
}

# fail MESSAGE: says what failed, with the end of the log, and exits 1.
fail() { echo "FAIL: $*"; [ -f log ] && tail -20 log; exit 1; }

# crash_timed COMMAND...: runs COMMAND (its output to /dev/null, its errors
# to log), and sets ref_ms to its time and max_delay to the longest kill
# delay worth drawing (the reference's time, at least 100 ms). Returns the
# command's status.
crash_timed() {
    local start st
    start=$(date +%s%N)
    "$@" > /dev/null 2> log
    st=$?
    ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    max_delay=$(( ref_ms > 100 ? ref_ms : 100 ))
    return $st
}

# newest_checkpoint DIR: the id of the newest complete checkpoint in DIR (0: none).
newest_checkpoint() {
    local m n=0 id
    for m in "$1"/chk-*/_metadata; do
        [ -e "$m" ] || continue
        id=${m%/_metadata}
        id=${id##*/chk-}
        [ "$id" -gt "$n" ] && n=$id
    done
    echo "$n"
}

# await_new_checkpoint DIR WHAT: waits, at most 120 s and while the job
# started in the background ($pid) runs, until a checkpoint newer than the
# newest one in DIR now completes; fail() names WHAT otherwise.
await_new_checkpoint() {
    local n i
    n=$(newest_checkpoint "$1")
    for ((i = 0; i < 2400; i++)); do
        [ "$(newest_checkpoint "$1")" -gt "$n" ] && return 0
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.05
    done
    fail "$2: no checkpoint completed"
}

# crash_kill_one DELAY_MS COMMAND...: starts COMMAND (errors appended to
# log), kills it with SIGKILL after DELAY_MS, and returns its exit status
# (137 when the kill came first, 0 when it had finished). With
# CRASH_CKPT_DIR set the delay counts from the first checkpoint the run
# completes there (or its end), so every killed run leaves progress to
# restore however slowly it starts.
crash_kill_one() {
    local delay=$1 pid before i
    shift
    [ -n "${CRASH_CKPT_DIR:-}" ] && before=$(newest_checkpoint "$CRASH_CKPT_DIR")
    "$@" > /dev/null 2>> log &
    pid=$!
    if [ -n "${CRASH_CKPT_DIR:-}" ]; then
        for ((i = 0; i < 2000; i++)); do
            [ "$(newest_checkpoint "$CRASH_CKPT_DIR")" -gt "$before" ] && break
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.01
        done
    fi
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
}

# crash_kill_loop N COMMAND...: N runs of COMMAND, each killed after a
# random delay in [1, max_delay / 2] ms (crash_timed set max_delay;
# CRASH_CKPT_DIR: see crash_kill_one); a run that ends on its own must end
# with 0. Sets kills to the runs killed.
crash_kill_loop() {
    local n=$1 i st
    shift
    kills=0
    for ((i = 1; i <= n; i++)); do
        crash_kill_one $(( RANDOM % (max_delay / 2) + 1 )) "$@"
        st=$?
        if [ $st -eq 137 ]; then kills=$((kills + 1)); elif [ $st -ne 0 ]; then fail "attempt $i exited $st"; fi
    done
}

# crash_savepoint [--stop] COMMAND...: starts COMMAND (a `weir run` with
# checkpoints in ckpt/ and state.savepoints.dir set; errors to log), waits
# for its first checkpoint (a savepoint asked of a job still starting is
# refused), and takes a savepoint with `weir savepoint PID`, then kills the
# job; with --stop, `weir savepoint PID --stop`, and the job must end with
# 0. Sets sp to the savepoint's folder; fails when none was written. The
# job's process id is in pid while it runs (for the caller's exit trap).
crash_savepoint() {
    local stop= i
    [ "$1" = --stop ] && { stop=--stop; shift; }
    "$@" > /dev/null 2> log &
    pid=$!
    for ((i = 0; i < 400; i++)); do compgen -G "ckpt/chk-*/_metadata" > /dev/null && break; sleep 0.05; done
    if [ -n "$stop" ]; then
        kill -0 "$pid" 2> /dev/null || fail "the job ended before the savepoint (a slow machine?)"
        "$WEIR" savepoint "$pid" --stop > /dev/null || fail "weir savepoint --stop failed"
        wait "$pid" || fail "the job stopped with a savepoint failed"
    else
        "$WEIR" savepoint "$pid" || fail "weir savepoint failed"
        for ((i = 0; i < 200; i++)); do grep -q "savepoint written to" log && break; sleep 0.05; done
        kill -9 "$pid" 2> /dev/null
        { wait "$pid"; } 2> /dev/null
    fi
    pid=
    sp=$(sed -n 's/.*savepoint written to \([^ ;]*\).*/\1/p' log | head -1)
    [ -n "$sp" ] && [ -f "$sp/_metadata" ] || { cat log; fail "no savepoint was written"; }
}

# For a test that restores a fixture (a checkpoint and the output folders
# $outs of the run that took it, tests/data/*/make.sh) and runs on: the
# files each run wrote (its committed and in-progress ones, by the names
# they are committed under), as "stage name" lines in $1/stages.txt: the
# fixture's are stage 0, each later run's the next stage.
fixture_stage() { # $1: the folder of a run, $2: the stage
    for o in $outs; do
        [ -d "$1/$o" ] || continue
        ls -A "$1/$o" | sed -n 's/^\.\(part-.*\)\.inprogress$/\1/p; /^part-/p' | sed "s|^|$2 $o/|"
    done >> "$1/stages.txt"
}

# The table each folder of debezium-json changes describes, its files
# applied in the order they were written: by stage, then by part number.
fixture_fold() { # $1: the folder of a run; prints one sorted line per row and sink
    python3 - "$1" "$outs" <<'PY'
import collections, json, os, re, sys
top, outs = sys.argv[1], sys.argv[2].split()
first = {}
if os.path.exists(os.path.join(top, "stages.txt")):
    for line in open(os.path.join(top, "stages.txt")):
        st, name = line.split()
        first.setdefault(name, int(st))
def order(out, n):
    m = re.match(r"part-(.*)-(\d+)-(\d+)\.json$", n)
    if not m:
        return (1 << 31, n, 0, 0)
    return (first.get(out + "/" + n, 1 << 30), m.group(1), int(m.group(2)), int(m.group(3)))
for out in outs:
    d = os.path.join(top, out)
    names = [n for n in os.listdir(d) if not n.startswith(".")] if os.path.isdir(d) else []
    rows = collections.Counter()
    for n in sorted(names, key=lambda n: order(out, n)):
        for line in open(os.path.join(d, n)):
            if not line.strip():
                continue
            e = json.loads(line)
            v = json.dumps(e["after"] if e["op"] == "c" else e["before"], sort_keys=True)
            if e["op"] == "c":
                rows[v] += 1
            elif rows[v] <= 0:
                sys.exit("%s: a delete of a row not there: %s" % (out, v))
            else:
                rows[v] -= 1
    for v, c in sorted((+rows).items()):
        for _ in range(c):
            print(out, v)
PY
}

# The uninterrupted run of $FIX/job.sql in $T/ref, folded into $T/ref.txt;
# every output of $outs must have rows.
fixture_reference() {
    mkdir "$T/ref" && cp "$FIX/job.sql" "$T/ref/" && (cd "$T/ref" && "$WEIR" run job.sql > /dev/null 2> log) ||
        fail "the reference run failed"
    fixture_fold "$T/ref" > "$T/ref.txt" || fail "the reference output does not fold"
    for o in $outs; do grep -q "^$o " "$T/ref.txt" || fail "the reference wrote nothing to $o"; done
}

# Copies fixture folder $FIX/$1 and the job into $2 as stage 0.
fixture_copy() {
    mkdir "$2" && cp -r "$FIX/$1"/. "$2"/ && cp "$FIX/job.sql" "$2"/ || fail "cannot copy $1"
    chmod -R u+w "$2"
    fixture_stage "$2" 0
}

# In the current folder: runs the job with the options given, restoring
# from the fixture's checkpoint chk-$1, and kills it once it took a
# checkpoint of its own (or ended); its log in ./log, its files stage 1.
fixture_restore_killed() {
    local first=$1 last i
    shift
    "$WEIR" run job.sql "$@" > /dev/null 2> log &
    pid=$! # restore_init's exit trap kills it if the test fails meanwhile
    for ((i = 0; i < 600; i++)); do
        last=$(newest_checkpoint ckpt)
        [ "$last" -gt "$first" ] && break
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.02
    done
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    pid=
    fixture_stage "$PWD" 1
}

# The first restore of a fixture: checkpoint fixture $1 copied into run
# folder $2 and restored from its newest checkpoint with the options that
# follow, killed once the job took a checkpoint of its own. Leaves the
# shell in $2 with its log; $first and $last are the fixture's checkpoint
# and the job's own.
fixture_first_run() {
    local fixture=$1 run=$2
    shift 2
    fixture_copy "$fixture" "$run"
    first=$(newest_checkpoint "$run/ckpt")
    cd "$run" || exit 1
    fixture_restore_killed "$first" "$@"
    grep -q "restoring from checkpoint chk-$first " log || fail "$run: not restored from the fixture"
    last=$(newest_checkpoint ckpt) # (older checkpoints are removed as newer ones complete)
    [ "$last" -gt "$first" ] || fail "$run: the restored job took no checkpoint"
}

# The second restore, from the restored job's own checkpoint, runs to the
# end with the options that follow; $1 names the run.
fixture_second_run() {
    local what=$1
    shift
    "$WEIR" run job.sql "$@" > /dev/null 2> log || fail "$what: the second restore failed"
    grep -q "restoring from checkpoint chk-" log || fail "$what: the second run did not restore"
}

# The upgrade path's run: the fixture's savepoint copied into run folder
# $2 and restored with --from at parallelism $1 (memory at 1, RocksDB
# otherwise), to the end. Leaves the shell in $2 with its log, and the
# savepoint's path in $spath.
fixture_savepoint_run() {
    local p=$1 opts=()
    fixture_copy savepoint "$2"
    cd "$2" || exit 1
    spath=$(ls -d sp/savepoint-* | head -1)
    [ "$p" = 1 ] || opts+=(-D state.backend.type=rocksdb -D weir.state.dir=state)
    "$WEIR" run job.sql --from "$spath" "${opts[@]}" -D parallelism.default="$p" > /dev/null 2> log ||
        fail "savepoint at p $p: the restore failed"
    grep -q "restoring from savepoint $spath" log || fail "savepoint at p $p: not restored from it"
}

# Run folder $1's folded output against the reference; $2 names the run.
fixture_compare() {
    fixture_fold "$1" > "$T/got.txt" || fail "$2: the output does not fold"
    cmp -s "$T/got.txt" "$T/ref.txt" ||
        { diff "$T/got.txt" "$T/ref.txt" | head; fail "$2: results differ from an uninterrupted run"; }
}
