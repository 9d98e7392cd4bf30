#!/usr/bin/env bash
# bench/rest_overhead.sh WEIR [RUNS] [ROWS] - what serving /metrics, the
# REST API and the web UI costs a window job.
#
# A bounded datagen job (ROWS rows, 1000 keys, 1 s TUMBLE COUNT/SUM into a
# blackhole sink) runs RUNS times each way, interleaved A/B so that a
# loaded machine hurts both alike:
#   A  rest.enabled = false (the monitor thread still samples)
#   B  the HTTP endpoint on, scraped every SCRAPE_MS (default 1000) the
#      way an open web UI does (/jobs/:id, /jobs/:id/watermarks,
#      /jobs/:id/checkpoints) plus /metrics (a Prometheus server scrapes
#      every 15 s by default)
# and prints the median wall time and CPU time (user + system) of each,
# and B's overhead. The job's own figures are not timed here: the process is.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
RUNS=${2:-5}
ROWS=${3:-20000000}
T=$(mktemp -d /tmp/weir-rest-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
mkdir -m 700 run
export XDG_RUNTIME_DIR=$T/run
cat > win.sql <<SQL
CREATE TABLE src (k BIGINT, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '$ROWS', 'fields.ts_ms.kind' = 'sequence',
  'fields.ts_ms.start' = '0', 'fields.ts_ms.end' = '1000000000000', 'fields.k.min' = '0',
  'fields.k.max' = '999', 'fields.v.min' = '0', 'fields.v.max' = '100');
CREATE TABLE dst (k BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, s BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
SQL
scrape() { # $1: pid of weir, $2: its stderr file
    local url= jid= i
    for ((i = 0; i < 2000; i++)); do
        url=$(grep -o 'REST API at http://[^ ]*' "$2" | sed 's/.* at //')
        jid=$(grep -o '(job [0-9a-f]*' "$2" | cut -c6-)
        [ -n "$url" ] && [ -n "$jid" ] && break
        kill -0 "$1" 2> /dev/null || return
        sleep 0.01
    done
    while kill -0 "$1" 2> /dev/null; do
        curl -s "${url}metrics" "${url}jobs/$jid" "${url}jobs/$jid/watermarks" \
            "${url}jobs/$jid/checkpoints" > /dev/null
        sleep "$(echo "scale=3; ${SCRAPE_MS:-1000} / 1000" | bc)"
    done
}
run() { # $1: A or B; appends "wall cpu" to $1.times
    local t0 t1 c
    t0=$(date +%s.%N)
    if [ "$1" = A ]; then
        "$WEIR" run win.sql -D rest.enabled=false > /dev/null 2> err.$1 &
    else
        "$WEIR" run win.sql -D rest.port=0 > /dev/null 2> err.$1 &
    fi
    local pid=$!
    [ "$1" = B ] && scrape $pid err.B &
    # CPU time of the weir process, and of its serving threads (weir-http,
    # weir-monitor) alone, read just before it exits.
    # (The process's stat counts threads that have ended; the serving
    # threads live until the end.)
    local c=0 s=0 x y
    while kill -0 $pid 2> /dev/null; do
        x=$(awk '{printf "%.2f", ($14 + $15) / 100}' /proc/$pid/stat 2> /dev/null)
        y=$(cat /proc/$pid/task/*/stat 2> /dev/null | sed 's/^[0-9]* (\([^)]*\))/\1/' |
            awk '$1 ~ /^weir-(http|monitor)$/ {srv += ($13 + $14) / 100} END {printf "%.2f", srv}')
        [ -n "$x" ] && c=$x
        # (they end just before the process does: keep the last reading)
        [ -n "$y" ] && [ "$(echo "$y > $s" | bc)" = 1 ] && s=$y
        sleep 0.02
    done
    wait $pid
    t1=$(date +%s.%N)
    wait
    echo "$(echo "$t1 - $t0" | bc) $c $s" >> "$1.times"
}
for ((r = 0; r < RUNS; r++)); do run A; run B; done
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
for x in A B; do
    w=$(cut -d' ' -f1 $x.times | median)
    c=$(cut -d' ' -f2 $x.times | median)
    s=$(cut -d' ' -f3 $x.times | median)
    echo "$x: median wall $w s, median CPU $c s (of which serving threads $s s) over $RUNS runs of $ROWS rows ($(echo "$ROWS / $w" | bc) rows/s)"
    eval "W$x=$w C$x=$c S$x=$s"
done
echo "B: serving threads used $(echo "scale=2; $SB * 100 / ($CB - $SB)" | bc) % of the CPU the job's threads used"
echo "B vs A: wall $(echo "scale=2; ($WB - $WA) * 100 / $WA" | bc) %, CPU $(echo "scale=2; ($CB - $CA) * 100 / $CA" | bc) %"
