#!/usr/bin/env bash
# bench/splits_bench.sh - a keyed TUMBLE job over one JSON file read as one
# split and as several byte-range splits ('source.split-size'). The file is
# sorted by event time, so the splits are far apart in event time and the
# watermark stays at the slowest one: every split's records must find their
# slice among thousands of newer open slices.
#
#   bash bench/splits_bench.sh WEIR [EVENTS] [RUNS]
#
# Prints wall seconds and peak memory (max RSS) per run and the medians.
set -euo pipefail
WEIR=${1:?usage: splits_bench.sh WEIR [EVENTS] [RUNS]}
EVENTS=${2:-2000000}
RUNS=${3:-3}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" "$EVENTS" <<'PY'
import random, sys
d, n = sys.argv[1], int(sys.argv[2])
r = random.Random(7)
with open(f"{d}/ev.json", "w") as f:
    for i in range(n):
        f.write('{"k":"k%d","v":%d,"ts_ms":%d}\n' % (r.randrange(10000), r.randrange(100), 1700000000000 + i * 2))
PY
size=$(stat -c %s "$DIR/ev.json")
for splits in 1 4 16; do
    opt=""
    [ "$splits" -gt 1 ] && opt="'source.split-size' = '$(( size / splits + 1 ))',"
    cat > "$DIR/job_$splits.sql" <<SQL
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$DIR/ev.json', 'format' = 'json', $opt 'json.ignore-parse-errors' = 'false');
CREATE TABLE dst (k STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT k, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '100' MILLISECOND))
GROUP BY k, window_start, window_end;
SQL
    secs=(); kbs=()
    for r in $(seq 1 "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$DIR/t" "$WEIR" run "$DIR/job_$splits.sql" >/dev/null 2>"$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
        read -r s kb < "$DIR/t"
        secs+=("$s"); kbs+=("$kb")
        echo "splits=$splits run=$r wall_s=$s max_rss_kb=$kb"
    done
    med_s=$(printf '%s\n' "${secs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    med_kb=$(printf '%s\n' "${kbs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "splits=$splits median wall_s=$med_s max_rss_kb=$med_kb events=$EVENTS"
done
