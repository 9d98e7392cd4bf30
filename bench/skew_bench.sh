#!/usr/bin/env bash
# bench/skew_bench.sh - a skewed keyed aggregation (one key carries half of
# all events) at parallelism 1 and 2, in one phase and in two phases
# (table.optimizer.agg-phase-strategy = ONE_PHASE / TWO_PHASE), and a
# COUNT(DISTINCT) unsplit and split (table.optimizer.distinct-agg.split.enabled
# = false / true, strategies NOSPLIT / SPLIT).
#
#   bash bench/skew_bench.sh [-e EVENTS] [-r ROUNDS] [-j JOBS] [-k KEYS]
#                            [-p PARALLELISMS] WEIR
#
#   JOBS: a comma-separated subset of tumble,group,distinct (default
#   tumble,group):
#     tumble    1 s TUMBLE, COUNT(*), SUM(v), MAX(v) per key
#     group     GROUP BY key, COUNT(*), SUM(v), MAX(v), mini-batch on (an
#               updating result into blackhole)
#     distinct  GROUP BY key, COUNT(DISTINCT v), mini-batch on (an updating
#               result into blackhole); v has 1000 values, so the split's
#               partial aggregation (1024 buckets) gives each its own bucket
#   PARALLELISMS: a comma-separated list (default 1,2); the first is the
#   base of the speed-ups printed at the end
# The source is datagen: k uniform in 0..KEYS-1 (default 10 000), v uniform
# in 0..999, one event per millisecond; the key is 0 where v is even (half
# of all events), else k (KEYS keys for the other half). With many keys the
# local phase folds few of the other half's rows (a batch of 1024 rows
# holds ~500 of them, nearly all of distinct keys); with few keys it folds
# nearly all of them.
#
# Each run is a fresh `weir run` timed with /usr/bin/time: wall seconds,
# user + system CPU seconds of the whole process and peak RSS. Prints one
# line per run and the medians per (job, parallelism, strategy), then the
# wall-clock ratio p=1 / p=2 per job and strategy. The ratio needs two idle
# cores; on a shared machine report the load beside it.
set -euo pipefail
EVENTS=5000000
ROUNDS=3
JOBS=tumble,group
KEYS=10000
PARS=1,2
while getopts e:r:j:k:p: o; do
    case $o in
    e) EVENTS=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    j) JOBS=$OPTARG ;;
    k) KEYS=$OPTARG ;;
    p) PARS=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
W=${1:?usage: skew_bench.sh [-e EVENTS] [-r ROUNDS] [-j JOBS] [-k KEYS] [-p PARALLELISMS] WEIR}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

strategies() { # $1: job
    if [ "$1" = distinct ]; then echo NOSPLIT SPLIT; else echo ONE_PHASE TWO_PHASE; fi
}

write_job() { # $1: job, $2: parallelism, $3: strategy
    local f="$DIR/$1-p$2-$3.sql"
    {
        echo "SET 'parallelism.default' = '$2';"
        case $3 in
        NOSPLIT) echo "SET 'table.optimizer.distinct-agg.split.enabled' = 'false';" ;;
        SPLIT) echo "SET 'table.optimizer.distinct-agg.split.enabled' = 'true';" ;;
        *) echo "SET 'table.optimizer.agg-phase-strategy' = '$3';" ;;
        esac
        echo "SET 'table.exec.mini-batch.enabled' = 'true';"
        cat <<SQL
CREATE TABLE src (k BIGINT, v BIGINT, ts TIMESTAMP(3),
  hk AS CASE WHEN MOD(v, 2) = 0 THEN CAST(0 AS BIGINT) ELSE k END,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '$EVENTS',
  'fields.k.min' = '0', 'fields.k.max' = '$((KEYS - 1))',
  'fields.v.min' = '0', 'fields.v.max' = '999',
  'fields.ts.kind' = 'sequence', 'fields.ts.start' = '2023-11-14 22:13:20',
  'fields.ts.end' = '2100-01-01 00:00:00');
SQL
        if [ "$1" = tumble ]; then
            cat <<SQL
CREATE TABLE dst (k BIGINT, ws TIMESTAMP(3), c BIGINT, s BIGINT, m BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT hk, window_start, COUNT(*), SUM(v), MAX(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY hk, window_start, window_end;
SQL
        elif [ "$1" = distinct ]; then
            cat <<SQL
CREATE TABLE dst (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT hk, COUNT(DISTINCT v) FROM src GROUP BY hk;
SQL
        else
            cat <<SQL
CREATE TABLE dst (k BIGINT, c BIGINT, s BIGINT, m BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT hk, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY hk;
SQL
        fi
    } >"$f"
    echo "$f"
}

IFS=, read -r -a joblist <<<"$JOBS"
IFS=, read -r -a parlist <<<"$PARS"
declare -A cpu wall rss
for round in $(seq 1 "$ROUNDS"); do
    for job in "${joblist[@]}"; do
        for p in "${parlist[@]}"; do
            for st in $(strategies "$job"); do
                sql=$(write_job "$job" "$p" "$st")
                /usr/bin/time -f "%U %S %e %M" -o "$DIR/t" "$W" run "$sql" >/dev/null 2>"$DIR/err" ||
                    { cat "$DIR/err" >&2; exit 1; }
                read -r u s e m <"$DIR/t"
                c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
                key="$job p=$p $st"
                cpu[$key]+="$c "
                wall[$key]+="$e "
                rss[$key]+="$m "
                echo "round=$round job=$job p=$p strategy=$st wall_s=$e cpu_s=$c max_rss_kb=$m load1=$(cut -d' ' -f1 /proc/loadavg)"
            done
        done
    done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# medians over $ROUNDS rounds, $EVENTS events, $KEYS keys besides the hot one, $(nproc) cores"
for job in "${joblist[@]}"; do
    for st in $(strategies "$job"); do
        for p in "${parlist[@]}"; do
            key="$job p=$p $st"
            echo "$key wall_s=$(median <<<"${wall[$key]}") cpu_s=$(median <<<"${cpu[$key]}") max_rss_kb=$(median <<<"${rss[$key]}")"
        done
        p0=${parlist[0]}
        w1=$(median <<<"${wall[$job p=$p0 $st]}")
        for p in "${parlist[@]:1}"; do
            w2=$(median <<<"${wall[$job p=$p $st]}")
            echo "$job $st speed-up p=$p over p=$p0 (wall): $(awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%.2f", a / b }')"
        done
    done
done
