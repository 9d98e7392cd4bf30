# tests/support/nats_server.sh - a throwaway nats-server with JetStream for
# the tests, sourced by a test script:
#
#   . "$SRC/tests/support/nats_server.sh"
#   nats_start "$WORK/nats"   # starts it; sets NATS_URL (nats://127.0.0.1:PORT)
#   nats_stop                 # also run from the caller's EXIT trap
#
# The server listens on 127.0.0.1 at a free port, keeps its streams under
# DIR/js and logs to DIR/server.log. NATS_TOOL is weir-nats-tool next to the
# weir binary ($WEIR must be set).

nats__free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

nats_start() {
    local dir=$1
    NATS_SERVER_BIN=${NATS_SERVER_BIN:-$(command -v nats-server)}
    if [ -z "$NATS_SERVER_BIN" ]; then
        echo "nats_server: nats-server not found (install nats-server: scripts/install-deps.sh)" >&2
        return 1
    fi
    NATS_TOOL=$(dirname "$WEIR")/weir-nats-tool
    mkdir -p "$dir/js"
    local i
    for ((i = 0; i < 5; i++)); do
        NATS_PORT=$(nats__free_port)
        "$NATS_SERVER_BIN" -js -sd "$dir/js" -a 127.0.0.1 -p "$NATS_PORT" \
            -l "$dir/server.log" > /dev/null 2>&1 &
        NATS_PID=$!
        local t
        for ((t = 0; t < 100; t++)); do
            grep -q "Server is ready" "$dir/server.log" 2> /dev/null && break
            kill -0 "$NATS_PID" 2> /dev/null || break
            sleep 0.05
        done
        if grep -q "Server is ready" "$dir/server.log" 2> /dev/null; then
            NATS_URL=nats://127.0.0.1:$NATS_PORT
            export NATS_URL NATS_PORT NATS_PID NATS_TOOL
            return 0
        fi
        kill "$NATS_PID" 2> /dev/null
        wait "$NATS_PID" 2> /dev/null
        : > "$dir/server.log"
    done
    echo "nats_server: nats-server did not start (see $dir/server.log)" >&2
    return 1
}

nats_stop() {
    if [ -n "${NATS_PID:-}" ]; then
        kill "$NATS_PID" 2> /dev/null
        wait "$NATS_PID" 2> /dev/null
        NATS_PID=
    fi
}
