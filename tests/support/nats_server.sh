# tests/support/nats_server.sh - a throwaway nats-server with JetStream for
# the tests, sourced by a test script:
#
#   . "$SRC/tests/support/nats_server.sh"
#   nats_start "$WORK/nats"   # starts it; sets NATS_URL (nats://127.0.0.1:PORT)
#   nats_stop                 # also run from the caller's EXIT trap
#
# The server listens on 127.0.0.1 at a port it picks (-p -1), keeps its streams under
# DIR/js and logs to DIR/server.log. NATS_TOOL is weir-nats-tool next to the
# weir binary ($WEIR must be set).

nats_start() {
    local dir=$1
    NATS_SERVER_BIN=${NATS_SERVER_BIN:-$(command -v nats-server)}
    if [ -z "$NATS_SERVER_BIN" ]; then
        echo "nats_server: nats-server not found (install nats-server: scripts/install-deps.sh)" >&2
        return 1
    fi
    NATS_TOOL=$(dirname "$WEIR")/weir-nats-tool
    mkdir -p "$dir/js"
    "$NATS_SERVER_BIN" -js -sd "$dir/js" -a 127.0.0.1 -p -1 \
        -l "$dir/server.log" > /dev/null 2>&1 &
    NATS_PID=$!
    local t
    for ((t = 0; t < 200; t++)); do
        grep -q "Server is ready" "$dir/server.log" 2> /dev/null && break
        kill -0 "$NATS_PID" 2> /dev/null || break
        sleep 0.05
    done
    NATS_PORT=$(sed -n 's/.*Listening for client connections on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/server.log" 2> /dev/null | head -1)
    if grep -q "Server is ready" "$dir/server.log" 2> /dev/null && [ -n "$NATS_PORT" ]; then
        NATS_URL=nats://127.0.0.1:$NATS_PORT
        export NATS_URL NATS_PORT NATS_PID NATS_TOOL
        return 0
    fi
    nats_stop
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
