#!/usr/bin/env bash
# bench/splits_bench.sh - a keyed TUMBLE job (COUNT and SUM per key and
# 100 ms window, 10 000 keys, blackhole sink) over one JSON file read as one
# split and as many byte-range splits ('source.split-size'), optionally
# against a second weir binary, alternated run by run in the same round.
#
#   bash bench/splits_bench.sh [-e EVENTS] [-r RUNS] [-s SPLITS] [-f FILES]
#                              [-p PARALLELISM] [-t TIMEOUT_S] WEIR [WEIR_B]
#
#   SPLITS: space- or comma-separated split counts (default 1,4,64,1024)
#   FILES:  sorted,drift (default both)
#     sorted: two events per millisecond in file order, watermark 1 s
#             behind: ranges of the file are far apart in event time.
#     drift:  the same, but each key's clock runs behind by its own lag of
#             up to a minute (0-59 999 ms), watermark 1 minute behind: the
#             event times in any stretch of the file drift apart by up to a
#             minute, and the watermark requires a minute of windows.
#
# Each run is a fresh `weir run` process timed with /usr/bin/time: wall
# seconds, user + system CPU seconds and peak RSS. A run over TIMEOUT_S
# (default 600) is killed and reported as such. Prints one line per run and,
# per (file, splits, binary), the medians and the CPU throughput relative
# to the one-split run of the same binary.
set -euo pipefail
EVENTS=2000000
RUNS=3
SPLITS="1,4,64,1024"
FILES="sorted,drift"
PAR=1
TIMEOUT=600
while getopts e:r:s:f:p:t: o; do
    case $o in
    e) EVENTS=$OPTARG ;;
    r) RUNS=$OPTARG ;;
    s) SPLITS=$OPTARG ;;
    f) FILES=$OPTARG ;;
    p) PAR=$OPTARG ;;
    t) TIMEOUT=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
A=${1:?usage: splits_bench.sh [-e EVENTS] [-r RUNS] [-s SPLITS] [-f FILES] [-p P] [-t TIMEOUT_S] WEIR [WEIR_B]}
B=${2:-}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

IFS=', ' read -r -a splitlist <<<"$SPLITS"
IFS=', ' read -r -a filelist <<<"$FILES"
for kind in "${filelist[@]}"; do
    python3 - "$DIR/$kind.json" "$EVENTS" "$kind" <<'PY'
import random, sys
path, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = random.Random(7)
lag = [random.Random(k).randrange(60000) if kind == "drift" else 0 for k in range(10000)]
with open(path, "w") as f:
    for i in range(n):
        k = r.randrange(10000)
        f.write('{"k":"k%d","v":%d,"ts_ms":%d}\n' % (k, r.randrange(100), 1700000000000 + i // 2 - lag[k]))
PY
done

write_job() { # $1: file kind, $2: splits
    local f="$DIR/job_$1_$2.sql" size opt="" delay="'1' SECOND"
    size=$(stat -c %s "$DIR/$1.json")
    [ "$2" -gt 1 ] && opt="'source.split-size' = '$(( (size + $2 - 1) / $2 ))',"
    [ "$1" = drift ] && delay="'1' MINUTE"
    cat >"$f" <<SQL
SET 'parallelism.default' = '$PAR';
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL $delay)
WITH ('connector' = 'filesystem', 'path' = '$DIR/$1.json', 'format' = 'json', $opt 'json.ignore-parse-errors' = 'false');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '100' MILLISECOND))
GROUP BY k, window_start, window_end;
SQL
    echo "$f"
}

bins=("$A")
[ -n "$B" ] && bins+=("$B")
declare -A wall cpu rss
for r in $(seq 1 "$RUNS"); do
    for kind in "${filelist[@]}"; do
        for splits in "${splitlist[@]}"; do
            sql=$(write_job "$kind" "$splits")
            for bi in "${!bins[@]}"; do
                key="$kind splits=$splits bin=$bi"
                if ! /usr/bin/time -f "%e %U %S %M" -o "$DIR/t" timeout "$TIMEOUT" \
                    "${bins[$bi]}" run "$sql" >/dev/null 2>"$DIR/err"; then
                    if grep -q "Command exited with non-zero status 124" "$DIR/t"; then
                        echo "file=$kind splits=$splits bin=$bi run=$r TIMEOUT after ${TIMEOUT}s"
                        wall[$key]+="$TIMEOUT "
                        continue
                    fi
                    cat "$DIR/err" "$DIR/t" >&2
                    exit 1
                fi
                read -r e u s m <"$DIR/t"
                c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
                wall[$key]+="$e "
                cpu[$key]+="$c "
                rss[$key]+="$m "
                echo "file=$kind splits=$splits bin=$bi run=$r wall_s=$e cpu_s=$c max_rss_kb=$m"
            done
        done
    done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# medians over $RUNS runs, $EVENTS events, parallelism $PAR (bin 0 = $A${B:+, bin 1 = $B})"
for kind in "${filelist[@]}"; do
    for bi in "${!bins[@]}"; do
        base=$(median <<<"${cpu[$kind splits=${splitlist[0]} bin=$bi]:-}")
        for splits in "${splitlist[@]}"; do
            key="$kind splits=$splits bin=$bi"
            mc=$(median <<<"${cpu[$key]:-}")
            rel=$(awk -v b="$base" -v c="$mc" 'BEGIN { if (b > 0 && c > 0) printf "%.2f", b / c; else print "-" }')
            echo "file=$kind splits=$splits bin=$bi wall_s=$(median <<<"${wall[$key]}") cpu_s=${mc:--} max_rss_kb=$(median <<<"${rss[$key]:-}") cpu_throughput_vs_${splitlist[0]}_split=$rel"
        done
    done
done
