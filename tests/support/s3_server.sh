# tests/support/s3_server.sh - a throwaway S3-compatible server (s3rver,
# installed project-local by scripts/install-deps.sh into tests/node) for
# the object-storage tests. Source it, then:
#   s3_start DIR BUCKET   starts one on a free port, data under DIR; sets
#                         S3_PORT, S3_ENDPOINT, S3_PID, S3_DATA; keys S3RVER
#   s3_kill               SIGKILL (a crash mid-upload)
#   s3_restart            the same data and port again
#   s3_stop               stops it (call from an EXIT trap)
#   s3_check              restarts it if it died by itself (see below)
#   s3_bounded LIMIT WHAT COMMAND...  a bounded weir run (see below)
# s3_available SRC_DIR says whether s3rver is installed (else skip the test).
S3RVER_BIN=""
s3_available() {
    S3RVER_BIN="$1/tests/node/node_modules/.bin/s3rver"
    [ -x "$S3RVER_BIN" ] && command -v node > /dev/null
}
s3_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
_s3_launch() {
    "$S3RVER_BIN" -d "$S3_DATA" -a 127.0.0.1 -p "$S3_PORT" --configure-bucket "$S3_BUCKET" \
        --silent >> "$S3_DATA.log" 2>&1 &
    S3_PID=$!
    local i
    for ((i = 0; i < 200; i++)); do
        # (bounded: a port taken by another kind of server may never answer;
        # only this s3rver, still alive, counts)
        curl -s -m 2 "http://127.0.0.1:$S3_PORT/" 2> /dev/null | grep -q ListAllMyBucketsResult &&
            kill -0 "$S3_PID" 2> /dev/null && return 0
        kill -0 "$S3_PID" 2> /dev/null || break
        sleep 0.05
    done
    echo "s3_server: s3rver did not start on port $S3_PORT"; cat "$S3_DATA.log"
    return 1
}
s3_start() {
    S3_DATA=$1 S3_BUCKET=$2
    mkdir -p "$S3_DATA"
    S3_PORT=$(s3_free_port)
    S3_ENDPOINT="http://127.0.0.1:$S3_PORT"
    _s3_launch
}
s3_kill() { kill -9 "$S3_PID" 2> /dev/null; wait "$S3_PID" 2> /dev/null; S3_PID=""; }
s3_restart() { [ -z "$S3_PID" ] || s3_kill; _s3_launch; }
# s3rver 3.7 can crash by itself under load: a CompleteMultipartUpload
# that does not find a part's file ('._S3rver_uploads/ID/1') throws an
# unhandled ENOENT that ends the server (its UploadPart answers once the
# body is read, not once the part's file is written, which is the likely
# way there; seen once in a suite run at load, never on purpose). Every request after that
# fails, and a job whose final checkpoint cannot be written waits for the
# storage to come back. A test that does not stop the server itself calls
# s3_check while it waits: a server that died on its own is started again
# (same port, same data; S3_CRASHES counts it), after a note with the end
# of its log, as an outage the job rides out.
S3_CRASHES=0
s3_check() {
    [ -n "${S3_PID:-}" ] && ! kill -0 "$S3_PID" 2> /dev/null || return 0
    wait "$S3_PID" 2> /dev/null
    S3_CRASHES=$((S3_CRASHES + 1))
    if [ "$S3_CRASHES" -gt 3 ]; then
        echo "  s3rver died by itself $S3_CRASHES times: not started again"
        S3_PID=""
        return 1
    fi
    echo "  note: s3rver (pid $S3_PID) died by itself; started again. Its log says:"
    { grep -i 'error' "$S3_DATA.log" || grep -v '^ *$' "$S3_DATA.log"; } | tail -3 | sed 's/^/    /'
    _s3_launch
}
# s3_bounded LIMIT WHAT COMMAND...: runs COMMAND (output to /dev/null,
# errors added to log) for LIMIT seconds at most (watch_pid, of
# tests/support/watchdog.sh, which the test sources too: a run still going
# then is reported as WHAT); its status. A run that failed while s3rver had
# died by itself (s3_check) runs again, as a restart would.
s3_bounded() {
    local limit=$1 what=$2 crashes st
    shift 2
    while :; do
        crashes=$S3_CRASHES
        "$@" > /dev/null 2>> log &
        watch_pid $! "$limit" "$what"
        st=$?
        [ "$st" -ne 0 ] && [ "$st" -ne 124 ] && s3_check && [ "$S3_CRASHES" -gt "$crashes" ] || return "$st"
        echo "  note: $what failed (status $st) while s3rver was down: once more"
    done
}
s3_stop() { [ -z "${S3_PID:-}" ] || { kill "$S3_PID" 2> /dev/null; wait "$S3_PID" 2> /dev/null; }; S3_PID=""; }
# Keys under s3://BUCKET/PREFIX as s3rver stores them on disk (one per line).
s3_keys() {
    local d="$S3_DATA/$S3_BUCKET/$1"
    [ -d "$d" ] || return 0
    (cd "$S3_DATA/$S3_BUCKET" && find "$1" -name '*._S3rver_object' 2> /dev/null | sed 's/\._S3rver_object$//' | sort)
}
