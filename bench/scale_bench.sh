#!/usr/bin/env bash
# bench/scale_bench.sh - CPU time per event at parallelism 1 and 2 for the
# synthetic keyed window jobs (TUMBLE and HOP, COUNT and SUM per key, 10 000
# keys, blackhole sink), over a datagen source and over one JSON file read
# in byte ranges ('source.split-size'), optionally
# against a second weir binary, alternated run by run in the same round.
#
#   bash bench/scale_bench.sh [-e EVENTS] [-r ROUNDS] [-j JOBS] [-n RANGES]
#                             [-p PARALLELISMS] WEIR [WEIR_B]
#
#   JOBS: a comma-separated subset of tumble-datagen,hop-datagen,
#         tumble-json,hop-json (default: all four)
#   RANGES: the JSON file's byte ranges (dealt out in stride: subtask s of p
#         reads ranges s, s + p, ...); 0 (default): one range per subtask
#   PARALLELISMS: a comma-separated list of parallelisms (default: 1,2); on
#         a machine with more cores, e.g. 1,2,4,8,16
#
# Each run is a fresh `weir run` process timed with /usr/bin/time: user +
# system CPU seconds of the whole process (all threads), wall seconds and
# peak RSS. Prints one line per run and, per (job, parallelism, binary), the
# median CPU nanoseconds per event, the median wall seconds and the median
# peak RSS. On a shared machine only the CPU figures mean anything; the
# wall-clock speed-up of parallelism 2 needs two otherwise idle cores.
set -euo pipefail
EVENTS=5000000
ROUNDS=3
JOBS=tumble-datagen,hop-datagen,tumble-json,hop-json
RANGES=0
PARS=1,2
while getopts e:r:j:n:p: o; do
    case $o in
    e) EVENTS=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    j) JOBS=$OPTARG ;;
    n) RANGES=$OPTARG ;;
    p) PARS=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
A=${1:?usage: scale_bench.sh [-e EVENTS] [-r ROUNDS] [-j JOBS] [-n RANGES] [-p PARALLELISMS] WEIR [WEIR_B]}
B=${2:-}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# The JSON input: the same rows datagen makes in shape (key, value, one
# event per millisecond), written once.
if [[ $JOBS == *json* ]]; then
    python3 - "$DIR/ev.json" "$EVENTS" <<'PY'
import random, sys
path, n = sys.argv[1], int(sys.argv[2])
r = random.Random(7)
with open(path, "w") as f:
    for i in range(n):
        f.write('{"k":%d,"v":%d,"ts_ms":%d}\n' % (r.randrange(10000), r.randrange(1000), 1700000000000 + i))
PY
fi

window() { # $1: tumble|hop
    if [ "$1" = tumble ]; then
        echo "TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)"
    else
        echo "HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '10' SECOND)"
    fi
}

write_job() { # $1: job name, $2: parallelism
    local kind=${1%%-*} src=${1#*-} f="$DIR/$1-p$2.sql"
    {
        echo "SET 'parallelism.default' = '$2';"
        if [ "$src" = datagen ]; then
            cat <<SQL
CREATE TABLE src (k BIGINT, v BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '$EVENTS',
  'fields.k.min' = '0', 'fields.k.max' = '9999',
  'fields.v.min' = '0', 'fields.v.max' = '999',
  'fields.ts.kind' = 'sequence', 'fields.ts.start' = '2023-11-14 22:13:20',
  'fields.ts.end' = '2100-01-01 00:00:00');
SQL
        else
            local size split n=$RANGES
            size=$(stat -c %s "$DIR/ev.json")
            [ "$n" -gt 0 ] || n=$2
            split=$((size / n + 1))
            cat <<SQL
CREATE TABLE src (k BIGINT, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$DIR/ev.json', 'format' = 'json',
  'source.split-size' = '$split');
SQL
        fi
        cat <<SQL
CREATE TABLE dst (k BIGINT, ws TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE($(window "$kind"))
GROUP BY k, window_start, window_end;
SQL
    } >"$f"
    echo "$f"
}

IFS=, read -r -a joblist <<<"$JOBS"
IFS=, read -r -a parlist <<<"$PARS"
bins=("$A")
[ -n "$B" ] && bins+=("$B")
declare -A cpu wall rss
for round in $(seq 1 "$ROUNDS"); do
    for job in "${joblist[@]}"; do
        for p in "${parlist[@]}"; do
            sql=$(write_job "$job" "$p")
            for bi in "${!bins[@]}"; do
                /usr/bin/time -f "%U %S %e %M" -o "$DIR/t" "${bins[$bi]}" run "$sql" >/dev/null 2>"$DIR/err" ||
                    { cat "$DIR/err" >&2; exit 1; }
                read -r u s e m <"$DIR/t"
                c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
                ns=$(awk -v c="$c" -v n="$EVENTS" 'BEGIN { printf "%.1f", c * 1e9 / n }')
                key="$job p=$p bin=$bi"
                cpu[$key]+="$ns "
                wall[$key]+="$e "
                rss[$key]+="$m "
                echo "round=$round job=$job p=$p bin=$bi cpu_s=$c ns_per_event=$ns wall_s=$e max_rss_kb=$m"
            done
        done
    done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# medians over $ROUNDS rounds, $EVENTS events (bin 0 = $A${B:+, bin 1 = $B})"
for job in "${joblist[@]}"; do
    for p in "${parlist[@]}"; do
        for bi in "${!bins[@]}"; do
            key="$job p=$p bin=$bi"
            echo "$key ns_per_event=$(median <<<"${cpu[$key]}") wall_s=$(median <<<"${wall[$key]}") max_rss_kb=$(median <<<"${rss[$key]}")"
        done
    done
done
