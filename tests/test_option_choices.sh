#!/usr/bin/env bash
# tests/test_option_choices.sh WEIR - the connector options whose value is
# one of a list of names (weir__opt_choice): for each, `weir explain` of a
# job with a bad value fails with exit 3 and an error that names the table,
# the option, every allowed value and the value found; and each option
# keeps its matching: any case where Flink's option is of enum type or
# Flink's connector lowers the value (Kafka's and postgres-cdc's modes,
# 'value.fields-include'; NATS's modes, as Kafka's), exact for weir's own
# and Flink's string options (datagen's kind), and the Java constant spelling
# (AT_LEAST_ONCE) too for the jdbc sink's delivery guarantee. explain reads
# the options without reaching a broker, a server or a database.
set -u
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-optchoice-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
: > in.json

KAFKA="'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'json'"
NATS="'connector' = 'nats', 'servers' = 'nats://localhost:1', 'format' = 'json'"
PG="'url' = 'jdbc:postgresql://localhost:1/d', 'table-name' = 't'"
CDC="'connector' = 'postgres-cdc', 'hostname' = 'localhost', 'database-name' = 'd', 'schema-name' = 's',
  'table-name' = 't', 'username' = 'u', 'password' = 'p', 'slot.name' = 'sl'"
FILE="'connector' = 'filesystem', 'path' = '$T/in.json', 'format' = 'json'"

# job KIND OPTIONS: a job whose source (KIND src), sink (dst), partitioned
# filesystem sink (part) or jdbc lookup table (dim) has OPTIONS.
job() {
    local src="'connector' = 'datagen', 'number-of-rows' = '1'" dst="'connector' = 'blackhole'"
    local dim="" part="" join=""
    case $1 in
        src) src=$2 ;;
        dst) dst=$2 ;;
        part) part="PARTITIONED BY (p)"; dst=$2 ;;
        dim)
            dim="CREATE TABLE dim (v BIGINT, p STRING) WITH ('connector' = 'jdbc', $PG, $2);"
            join="JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.v = d.v" ;;
    esac
    cat <<EOF
CREATE TABLE src (v BIGINT, p STRING, pt AS PROCTIME()) WITH ($src);
$dim
CREATE TABLE dst (v BIGINT, p STRING) $part WITH ($dst);
INSERT INTO dst SELECT s.v, s.p FROM src AS s $join;
EOF
}

# bad KIND OPTIONS MESSAGE: explain fails (exit 3) with MESSAGE.
n_bad=0
bad() {
    job "$1" "$2" > bad.sql
    "$WEIR" explain bad.sql > /dev/null 2> err.txt
    local rc=$?
    if [ $rc -ne 3 ] || ! grep -qF -- "$3" err.txt; then
        cat bad.sql err.txt
        fail "exit $rc; expected exit 3 and: $3"
    fi
    n_bad=$((n_bad + 1))
}
# good KIND OPTIONS: explain takes them.
n_good=0
good() {
    job "$1" "$2" > good.sql
    "$WEIR" explain good.sql > /dev/null 2> err.txt || { cat good.sql err.txt; fail "rejected: $2"; }
    n_good=$((n_good + 1))
}

# ---- filesystem and stdin sources ----
bad src "$FILE, 'source.read-mode' = 'mmap'" \
    "table 'src': option 'source.read-mode': expected 'map' or 'read', found 'mmap'"
bad src "$FILE, 'source.read-mode' = 'Read'" "option 'source.read-mode': expected 'map' or 'read', found 'Read'"
good src "$FILE, 'source.read-mode' = 'read'"
bad src "$FILE, 'source.bad-input' = 'Skip'" \
    "table 'src': option 'source.bad-input': expected 'fail', 'skip' or 'dead-letter', found 'Skip'"
good src "$FILE, 'source.bad-input' = 'skip'"
bad src "$FILE, 'source.bad-input' = 'fail', 'json.ignore-parse-errors' = 'true'" \
    "option 'source.bad-input' = 'fail' contradicts 'json.ignore-parse-errors' = 'true'"
bad src "$FILE, 'source.dead-letter.path' = '$T/dl', 'source.bad-input' = 'skip'" \
    "option 'source.dead-letter.path' needs 'source.bad-input' = 'dead-letter'"
good src "$FILE, 'source.dead-letter.path' = '$T/dl'"
bad src "'connector' = 'stdin', 'format' = 'json', 'source.bad-input' = 'ignore'" \
    "table 'src': option 'source.bad-input': expected 'fail', 'skip' or 'dead-letter', found 'ignore'"
bad src "'connector' = 'stdin', 'format' = 'json', 'source.bad-input' = 'dead-letter', 'json.ignore-parse-errors' = 'true'" \
    "option 'source.bad-input' = 'dead-letter' contradicts 'json.ignore-parse-errors' = 'true'"
good src "'connector' = 'stdin', 'format' = 'json', 'source.bad-input' = 'skip'"

# ---- datagen ----
bad src "'connector' = 'datagen', 'fields.v.kind' = 'Sequence', 'fields.v.start' = '1', 'fields.v.end' = '2'" \
    "table 'src': option 'fields.v.kind': expected 'sequence' or 'random', found 'Sequence'"
good src "'connector' = 'datagen', 'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '2'"

# built NAME: whether this weir has connector NAME (kafka, nats and the
# postgres ones are optional).
built() {
    printf "CREATE TABLE t (v BIGINT) WITH ('connector' = '%s');\nINSERT INTO t SELECT 1;\n" "$1" > probe.sql
    "$WEIR" explain probe.sql > /dev/null 2> err.txt
    ! grep -qF "is not built into this weir" err.txt || { echo "  '$1' is not built: its options untested"; return 1; }
}

# ---- kafka ----
if built kafka; then
bad src "$KAFKA, 'scan.startup.mode' = 'earliest_offset'" \
    "table 'src': option 'scan.startup.mode': expected 'earliest-offset', 'latest-offset', 'group-offsets', 'timestamp' or 'specific-offsets', found 'earliest_offset'"
good src "$KAFKA, 'scan.startup.mode' = 'Earliest-Offset'"
good src "$KAFKA, 'scan.startup.mode' = 'earliest-offset'"
bad src "$KAFKA, 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'earliest-offset'" \
    "table 'src': option 'scan.bounded.mode': expected 'unbounded', 'latest-offset', 'group-offsets', 'timestamp' or 'specific-offsets', found 'earliest-offset'"
good src "$KAFKA, 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'LATEST-OFFSET'"
good src "$KAFKA, 'scan.startup.mode' = 'earliest-offset', 'value.fields-include' = 'all'"
bad dst "$KAFKA, 'value.fields-include' = 'except-key'" \
    "table 'dst': option 'value.fields-include': expected 'ALL' or 'EXCEPT_KEY', found 'except-key'"
good dst "$KAFKA, 'value.fields-include' = 'except_key', 'key.format' = 'json', 'key.fields' = 'v'"
good dst "$KAFKA, 'value.fields-include' = 'ALL'"
bad dst "$KAFKA, 'sink.delivery-guarantee' = 'exactly_once'" \
    "table 'dst': option 'sink.delivery-guarantee': expected 'none', 'at-least-once' or 'exactly-once', found 'exactly_once'"
good dst "$KAFKA, 'sink.delivery-guarantee' = 'At-Least-Once'"
# a Kafka history of a hybrid table must end: 'unbounded' in any case is refused
HYB="'connector' = 'hybrid', 'format' = 'json', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1',
  'history.connector' = 'kafka', 'history.scan.startup.mode' = 'earliest-offset', 'live.connector' = 'kafka'"
bad src "$HYB, 'history.scan.bounded.mode' = 'Unbounded'" \
    "the history part 'history' must be bounded: a Kafka history needs 'history.scan.bounded.mode'"
good src "$HYB, 'history.scan.bounded.mode' = 'Latest-Offset'"
fi

# ---- nats ----
if built nats; then
bad src "$NATS, 'stream' = 'ev', 'scan.startup.mode' = 'first'" \
    "table 'src': option 'scan.startup.mode': expected 'earliest', 'latest', 'sequence' or 'timestamp', found 'first'"
good src "$NATS, 'stream' = 'ev', 'scan.startup.mode' = 'Latest'"
good src "$NATS, 'stream' = 'ev', 'scan.startup.mode' = 'latest'"
bad src "$NATS, 'stream' = 'ev', 'scan.bounded.mode' = 'latest-offset'" \
    "table 'src': option 'scan.bounded.mode': expected 'unbounded' or 'latest', found 'latest-offset'"
good src "$NATS, 'stream' = 'ev', 'scan.bounded.mode' = 'LATEST'"
bad dst "$NATS, 'sink.subject' = 'out', 'sink.delivery-guarantee' = 'once'" \
    "table 'dst': option 'sink.delivery-guarantee': expected 'none', 'at-least-once' or 'exactly-once', found 'once'"
good dst "$NATS, 'sink.subject' = 'out', 'sink.delivery-guarantee' = 'NONE'"
# the value as written, in the message of an option it rules out
bad dst "$NATS, 'sink.subject' = 'out', 'sink.delivery-guarantee' = 'None', 'sink.msg-id-prefix' = 'x'" \
    "'None' publishes without ids"
fi

# ---- postgres ----
if built jdbc; then
bad src "$CDC, 'scan.startup.mode' = 'never'" \
    "table 'src': option 'scan.startup.mode': expected 'initial' or 'latest-offset', found 'never'"
good src "$CDC, 'scan.startup.mode' = 'Initial'"
bad src "$CDC, 'scan.startup.mode' = 'latest_offset'" "found 'latest_offset'"
good src "$CDC, 'scan.startup.mode' = 'latest-offset'"
bad dst "'connector' = 'jdbc', $PG, 'sink.delivery-guarantee' = 'twice'" \
    "table 'dst': option 'sink.delivery-guarantee': expected 'exactly-once', 'at-least-once' or 'none', found 'twice'"
good dst "'connector' = 'jdbc', $PG, 'sink.delivery-guarantee' = 'AT_LEAST_ONCE'"
good dst "'connector' = 'jdbc', $PG, 'sink.delivery-guarantee' = 'None'"
bad dim "'lookup.cache' = 'LRU'" "table 'dim': option 'lookup.cache': expected 'NONE' or 'PARTIAL', found 'LRU'"
bad dim "'lookup.cache' = 'full'" \
    "option 'lookup.cache': expected 'NONE' or 'PARTIAL' (weir has no FULL cache for jdbc; a table read whole is a 'filesystem' lookup table), found 'full'"
good dim "'lookup.cache' = 'partial', 'lookup.partial-cache.max-rows' = '10'"
good dim "'lookup.cache' = 'None'"
fi

# ---- filesystem sink ----
PART="'connector' = 'filesystem', 'path' = '$T/out', 'format' = 'json', 'sink.partition-commit.policy.kind' = 'success-file'"
bad part "$PART, 'sink.partition-commit.trigger' = 'event-time'" \
    "table 'dst': option 'sink.partition-commit.trigger': expected 'process-time' or 'partition-time', found 'event-time'"
good part "$PART, 'sink.partition-commit.trigger' = 'Process-Time'"

echo "test_option_choices: $n_bad bad values named, $n_good spellings taken"
