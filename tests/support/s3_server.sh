# tests/support/s3_server.sh - a throwaway S3-compatible server (s3rver,
# installed project-local by scripts/install-deps.sh into tests/node) for
# the object-storage tests. Source it, then:
#   s3_start DIR BUCKET   starts one on a free port, data under DIR; sets
#                         S3_PORT, S3_ENDPOINT, S3_PID, S3_DATA; keys S3RVER
#   s3_kill               SIGKILL (a crash mid-upload)
#   s3_restart            the same data and port again
#   s3_stop               stops it (call from an EXIT trap)
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
        --silent > "$S3_DATA.log" 2>&1 &
    S3_PID=$!
    local i
    for ((i = 0; i < 200; i++)); do
        curl -s -o /dev/null "http://127.0.0.1:$S3_PORT/" && return 0
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
s3_stop() { [ -z "${S3_PID:-}" ] || { kill "$S3_PID" 2> /dev/null; wait "$S3_PID" 2> /dev/null; }; S3_PID=""; }
# Keys under s3://BUCKET/PREFIX as s3rver stores them on disk (one per line).
s3_keys() {
    local d="$S3_DATA/$S3_BUCKET/$1"
    [ -d "$d" ] || return 0
    (cd "$S3_DATA/$S3_BUCKET" && find "$1" -name '*._S3rver_object' | sed 's/\._S3rver_object$//' | sort)
}
