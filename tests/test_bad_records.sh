#!/usr/bin/env bash
# Bad records end to end through `weir run`: a record without an event time
# is located and goes through the bad-input policy; the record size limit
# (16 MiB) holds for every line; an oversized CSV record with many line
# breaks is one bad record; the run ends by saying how many records each
# source skipped. Inputs are generated here (tens of MB, never committed).
# Usage: test_bad_records.sh WEIR_BINARY SOURCE_DIR
set -u
weir=$1
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() { # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
cd "$work" || exit 1

# ---- a NULL or missing event time
printf '%s\n' '{"id": 1, "ts_ms": 1000}' '{"id": 2, "ts_ms": null}' '{"id": 3}' \
  '{"id": 4, "ts_ms": 2000}' >ev.json
job() { # policy options -> ev.sql
  cat >ev.sql <<SQL
CREATE TABLE t (id BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'ev.json', 'format' = 'json'$1);
SELECT id FROM t;
SQL
}
job ""
"$weir" run ev.sql >out 2>err; rc=$?
check "NULL event time fails the job by default" test $rc -eq 1
check "NULL event time is located and names the field written" \
  grep -qF 'ev.json:2:20: error: expected a non-null value for field "ts_ms" (the event time ts is computed from it), found null (offset 44)' err
job ", 'source.bad-input' = 'skip'"
"$weir" run ev.sql >out 2>err; rc=$?
check "skip: the job goes on" test $rc -eq 0
check "skip: the rows with an event time" test "$(cat out)" = "$(printf '+I[1]\n+I[4]')"
check "skip: the count is reported at the end" grep -qF "2 bad records skipped" err
job ", 'source.bad-input' = 'dead-letter', 'source.dead-letter.path' = 'dl.jsonl'"
"$weir" run ev.sql >out 2>err; rc=$?
check "dead-letter: the job goes on" test $rc -eq 0
check "dead-letter: two entries" test "$(wc -l <dl.jsonl)" -eq 2
check "dead-letter: the missing field, located at the end of its object" \
  grep -qF '{"file":"ev.json","line":3,"column":9,"offset":50,"error":"expected field \"ts_ms\" in the object (the event time ts is computed from it)"' dl.jsonl
check "dead-letter: the count is reported at the end" grep -qF "2 bad records written to the dead-letter file" err
rm -f dl.jsonl

# ---- the 16 MiB record limit, for lines of 17 and 30 MB
for mb in 17 30; do
  { echo '{"id": 1, "s": "a"}'
    printf '{"id": 2, "s": "'; head -c "${mb}000000" /dev/zero | tr '\0' x; echo '"}'
    echo '{"id": 3, "s": "b"}'; } >big.json
  cat >big.sql <<'SQL'
CREATE TABLE t (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'big.json', 'format' = 'json');
SELECT id FROM t;
SQL
  "$weir" run big.sql >out 2>err; rc=$?
  check "$mb MB line fails by default" test $rc -eq 1
  check "$mb MB line: the limit, located" grep -qF "big.json:2:1: error: expected a record of at most 16777216 bytes" err
  sed -i "s/'json');/'json', 'source.bad-input' = 'skip');/" big.sql
  "$weir" run big.sql >out 2>err; rc=$?
  check "$mb MB line skipped" test "$rc:$(tr '\n' ' ' <out)" = "0:+I[1] +I[3] "
  check "$mb MB line: one skipped, reported" grep -qF "1 bad record skipped" err
done
rm -f big.json

# ---- an oversized quoted CSV field with two million line breaks
{ echo '1,a'; printf '2,"'
  head -c 2000000 /dev/zero | tr '\0' '\n' | sed 's/^/xxxxxxxxxxxxxxxxxxx/'; echo '"'
  echo '3,b'; } >ml.csv
cat >ml.sql <<'SQL'
CREATE TABLE t (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'ml.csv', 'format' = 'csv',
  'source.bad-input' = 'dead-letter', 'source.dead-letter.path' = 'dl.jsonl');
SELECT id FROM t;
SQL
"$weir" run ml.sql >out 2>err; rc=$?
check "multi-line CSV record: the job goes on" test "$rc:$(tr '\n' ' ' <out)" = "0:+I[1] +I[3] "
check "multi-line CSV record: one dead-letter entry" test "$(wc -l <dl.jsonl)" -eq 1
check "multi-line CSV record: the entry is bounded" test "$(wc -c <dl.jsonl)" -lt 100000
check "multi-line CSV record: located" grep -qF '"line":2,"column":1,"offset":4,' dl.jsonl
check "multi-line CSV record: one reported" grep -qF "1 bad record written to the dead-letter file" err

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
