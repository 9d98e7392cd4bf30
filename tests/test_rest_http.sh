#!/usr/bin/env bash
# tests/test_rest_http.sh WEIR SOURCE_DIR - the HTTP endpoint of `weir run`.
#
# One running job: a datagen source (clicks) and a watched folder (views)
# whose one file is read at once, unioned into a 1 s TUMBLE; checkpoints on.
# The folder's source then has no open split and holds every watermark
# behind it, with no idle timeout set. Checked (tests/rest_check.py):
#   - the address (127.0.0.1, a free port) and the token file (mode 0600,
#     in $XDG_RUNTIME_DIR/weir) printed at start;
#   - every read-only endpoint, the watermark report (who holds the window
#     back and why), the checkpoint history, 404s;
#   - /metrics parsed by prometheus_client's parser, against the REST API;
#   - actions: 401 without a token, 403 with a wrong one, 404 for another
#     job; a savepoint with the token; the web UI rendered by headless
#     Chromium (its DOM against the API, and a screenshot); then a stop
#     with a savepoint over REST ends the process;
#   - the stall warning on stderr; rest.enabled = false; a bad rest.port;
#   - with an idle timeout, the read-out folder source turns idle and the
#     window's watermark follows the datagen source alone.
# Skipped (exit 0) when weir was built without libmicrohttpd; the UI part
# is skipped when /usr/bin/chromium is missing.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/weir-rest-XXXXXX)
pid=
cleanup() {
    [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; [ -f err ] && tail -20 err; exit 1; }
PY=/usr/bin/python3 # Debian's python3 has python3-prometheus-client
mkdir -m 700 run
export XDG_RUNTIME_DIR=$T/run
mkdir in
printf 'a,1000\nb,2000\n' > in/a.csv
cat > job.sql <<SQL
SET 'execution.checkpointing.interval' = '500ms';
SET 'state.checkpoints.dir' = '$T/ck';
SET 'state.savepoints.dir' = '$T/sp';
CREATE TABLE clicks (k STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.ts_ms.kind' = 'sequence',
  'fields.ts_ms.start' = '1', 'fields.ts_ms.end' = '1000000000', 'fields.k.length' = '1');
CREATE TABLE views (k STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '100ms');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT)
WITH ('connector' = 'blackhole');
CREATE VIEW u AS SELECT k, ts FROM clicks UNION ALL SELECT k, ts FROM views;
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
SQL

# A bad rest.port is refused, naming the key.
"$WEIR" run job.sql -D rest.port=http > out 2> err
rc=$?
[ $rc -eq 3 ] && grep -q "rest.port: expected a port" err || fail "bad rest.port: exit $rc"

"$WEIR" run job.sql -D rest.port=0 -D weir.watermark.stall-warning=2s \
    -D metrics.fetcher.update-interval=200ms > out 2> err &
pid=$!
url=
for ((i = 0; i < 600; i++)); do
    url=$(grep -o 'web UI and REST API at http://[^ ]*' err | sed 's/.* at //')
    [ -n "$url" ] && break
    grep -q "without libmicrohttpd" err && { echo "SKIP: weir built without libmicrohttpd"; exit 0; }
    kill -0 $pid 2> /dev/null || fail "weir ended early"
    sleep 0.05
done
[ -n "$url" ] || fail "no address printed"
case "$url" in http://127.0.0.1:[0-9]*/) ;; *) fail "address $url is not on 127.0.0.1" ;; esac
tok=$(grep -o 'actions need the token in [^)]*' err | sed 's/.* in //')
[ "$tok" = "$T/run/weir/rest-$pid.token" ] || fail "token file $tok"
[ "$(stat -c %a "$tok")" = 600 ] || fail "token file mode $(stat -c %a "$tok")"
[ "$(stat -c %a "$T/run/weir")" = 700 ] || fail "token folder mode"
grep -Eq '^[0-9a-f]{64}$' "$tok" || fail "token content"

$PY "$SRC/tests/rest_check.py" api "$url" || fail "api"
$PY "$SRC/tests/rest_check.py" actions "$url" "$tok" || fail "actions"

if [ -x /usr/bin/chromium ]; then
    # Headless Chromium loads the page of the running job; nothing is
    # fetched from anywhere else (no network but this loopback address).
    flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
        --disable-background-networking --disable-component-update --disable-sync
        --disable-extensions --disable-default-apps --virtual-time-budget=4000)
    # One run writes both the rendered DOM and a screenshot.
    timeout 150 /usr/bin/chromium "${flags[@]}" --user-data-dir="$T/chromium" --window-size=1400,1000 \
        --dump-dom --screenshot="$T/ui.png" "$url" > dom.html 2> chromium.log \
        || fail "chromium: $(tail -3 chromium.log)"
    $PY "$SRC/tests/rest_check.py" ui "$url" dom.html || fail "ui"
    [ "$(stat -c %s ui.png)" -gt 20000 ] || fail "screenshot too small"
    [ -n "${WEIR_REST_SCREENSHOT:-}" ] && cp ui.png "$WEIR_REST_SCREENSHOT"
else
    echo "SKIP: the UI part (no /usr/bin/chromium)"
fi

warned() {
    grep -q "WARN  tumbling window\[0\] watermark held by views\[0\]: no open split: every split was read to its end, waiting for new ones; no record for .* s; table.exec.source.idle-timeout is not set (not moved for .* s)" err
}
for ((i = 0; i < 600; i++)); do warned && break; sleep 0.05; done
warned || fail "no stall warning on stderr"

# Stop with a savepoint over REST: the process ends by itself.
$PY "$SRC/tests/rest_check.py" stop "$url" "$tok" || fail "stop"
for ((i = 0; i < 600; i++)); do kill -0 $pid 2> /dev/null || break; sleep 0.05; done
kill -0 $pid 2> /dev/null && fail "the job did not stop"
wait $pid
rc=$?
pid=
[ $rc -eq 0 ] || fail "exit $rc after a REST stop"
grep -q "asked over REST" err || fail "the stop is not logged"
[ "$(ls sp | wc -l)" -ge 2 ] || fail "two savepoints expected in sp/: $(ls sp)"
[ -e "$tok" ] && fail "the token file is left behind"

# rest.enabled = false: no endpoint, no token file.
timeout -s TERM 5 "$WEIR" run job.sql -D rest.enabled=false > out 2> err
grep -q "REST API at" err && fail "rest.enabled=false still serves"
[ -z "$(ls run/weir)" ] || fail "token file with rest.enabled=false"
# With an idle timeout, the folder source without an open split turns idle
# and the window's watermark follows clicks alone.
"$WEIR" run job.sql -D rest.port=0 -D table.exec.source.idle-timeout=500ms > out 2> err &
pid=$!
url=
for ((i = 0; i < 600; i++)); do
    url=$(grep -o 'web UI and REST API at http://[^ ]*' err | sed 's/.* at //')
    [ -n "$url" ] && break
    sleep 0.05
done
[ -n "$url" ] || fail "no address printed (idle run)"
$PY "$SRC/tests/rest_check.py" idle "$url" || fail "idle"
kill -TERM $pid
wait $pid
pid=
echo "PASS"
