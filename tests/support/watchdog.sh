# tests/support/watchdog.sh - a bound on how long one process of a test may
# run, and a report of where it stood when it did not end (sourced, never
# run). A test whose process hangs would otherwise be stopped by ctest's
# timeout with nothing in its log that says which step it was in:
#
#   . "$SRC/tests/support/watchdog.sh"
#   "$WEIR" run job.sql ... > /dev/null 2>> log &
#   watch_pid $! 240 "pass X, the last run" || fail "..."
#
# watch_pid PID LIMIT WHAT: waits for PID (a child of this shell) to end,
# for LIMIT seconds at most, and returns its exit status. A process still
# running after LIMIT seconds is reported (watch_report) and killed with
# SIGKILL; the status then is 124. WATCH_EXTRA, when set, names a function
# that prints more about the test's own state (called in a report);
# WATCH_TICK one called about once a second while it waits (a look at the
# servers the process needs, say; without one, watch_pid returns the moment
# the process ends).
watch_pid() {
    local pid=$1 limit=$2 what=$3
    if [ -n "${WATCH_TICK:-}" ]; then
        local deadline=$((SECONDS + limit)) n=0
        while kill -0 "$pid" 2> /dev/null && [ "$SECONDS" -lt "$deadline" ]; do
            sleep 0.1
            [ $((++n % 10)) -ne 0 ] || "$WATCH_TICK"
        done
        if kill -0 "$pid" 2> /dev/null; then
            watch_report "$pid" "$what: still running after $limit s"
            kill -9 "$pid" 2> /dev/null
            wait "$pid" 2> /dev/null
            return 124
        fi
        wait "$pid"
        return
    fi
    # Without a tick nothing needs doing while it runs: wait for the
    # process itself (the wait ends the moment it exits, where a poll adds
    # up to its period to every run) and leave the limit to one watcher
    # per script (watch_loop), told the process and its deadline in a file.
    # The flag file tells a kill by the watcher from the process's own status.
    local rc=0 now
    watch_loop_start
    printf -v now '%(%s)T' -1
    echo "$pid $((now + limit)) $limit $what" > "$WATCH_SLOT"
    wait "$pid" || rc=$?
    : > "$WATCH_SLOT"
    if [ -e "$WATCH_SLOT.killed" ]; then
        rm -f "$WATCH_SLOT.killed"
        return 124
    fi
    return "$rc"
}

# watch_loop_start: starts the script's watcher once: every second it reads
# the slot (process, deadline, limit, what) and reports and kills a process
# past its deadline; it ends within a second of the script.
watch_loop_start() {
    if [ -n "${WATCH_SLOT:-}" ] && kill -0 "$WATCH_LOOP" 2> /dev/null; then
        return
    fi
    WATCH_SLOT="${TMPDIR:-/tmp}/weir-watch.$$.$RANDOM"
    : > "$WATCH_SLOT"
    (
        while kill -0 $$ 2> /dev/null; do
            sleep 1
            local wpid= wdeadline= wlimit= wwhat= now
            read -r wpid wdeadline wlimit wwhat < "$WATCH_SLOT" 2> /dev/null
            [ -n "$wpid" ] || continue
            printf -v now '%(%s)T' -1
            if [ "$now" -ge "$wdeadline" ] && kill -0 "$wpid" 2> /dev/null; then
                : > "$WATCH_SLOT.killed"
                watch_report "$wpid" "$wwhat: still running after $wlimit s"
                kill -9 "$wpid" 2> /dev/null
                : > "$WATCH_SLOT"
            fi
        done
        rm -f "$WATCH_SLOT" "$WATCH_SLOT.killed"
    ) &
    WATCH_LOOP=$!
}

# watch_report PID WHY: prints WHY, the process's command line and the
# stack of each of its threads (gdb when installed and allowed to attach;
# else each thread's state and kernel wait channel), and WATCH_EXTRA's
# output.
watch_report() {
    local pid=$1 t gdbout="${TMPDIR:-/tmp}/weir-watch-gdb.$$"
    echo "STUCK: $2 (pid $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null))"
    if command -v gdb > /dev/null &&
        timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt 30' > "$gdbout" 2>&1 &&
        grep -q '^Thread ' "$gdbout"; then
        echo "== threads of $pid (gdb)"
        grep -E '^(Thread |#)' "$gdbout" | head -400
    else
        echo "== threads of $pid (no gdb stacks: $(grep -m1 -iE 'ptrace|denied|not permitted' "$gdbout" 2> /dev/null))"
        for t in /proc/"$pid"/task/*; do
            echo "$(basename "$t") $(cut -d' ' -f2,3 "$t/stat" 2> /dev/null) wchan=$(cat "$t/wchan" 2> /dev/null)"
        done | head -100
    fi
    rm -f "$gdbout"
    [ -z "${WATCH_EXTRA:-}" ] || "$WATCH_EXTRA"
}
