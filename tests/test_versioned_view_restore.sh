#!/usr/bin/env bash
# tests/test_versioned_view_restore.sh WEIR SOURCE_DIR - a temporal join
# against a versioned view (ROW_NUMBER() ... ORDER BY the event time DESC,
# rownum = 1) interrupted halfway and restored by a changed query, through
# `weir run --from` (docs/checkpoints.md, "Restore compatibility"):
#
# - a compatible change - a filter that passes every row added to the
#   view's inner query (every node id after the sources moves), the join's
#   projection changed, and the other state backend - resumes the join's
#   state (the versions of each currency and the orders waiting for the
#   watermark): the rows committed before the restore point are the old
#   query's, the rows after it the new one's, and together they are
#   exactly the rows of an uninterrupted run (each order once, with the
#   rate valid at its time);
# - incompatible changes - the view keyed by a column of another type, or
#   keeping other columns in its versions - are refused (exit 3) naming the
#   join and what changed, and leave the output alone; with
#   --allow-non-restored-state the join starts empty and says so.
#
# Both inputs are 6000 rows generated at 1000 a second, so the job is still
# running when its first checkpoint completes and the savepoint's command
# reaches it, even on a loaded machine (with 3000 rows it once came after
# every row); the restore point is taken then (the join then holds about a
# second of orders and versions).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
WEIR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/weir-vview-restore-XXXXXX)
cd "$T" || exit 1
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
visible() { find out -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2>/dev/null | LC_ALL=C sort; }

# Rates: one row a millisecond from 1000 s on, currencies c0-c4 in turn,
# rate = 3 * id. Orders: one a millisecond, currency c0-c5 (c5 has no rate:
# LEFT JOIN pads it with NULL).
cat > v1.sql <<'SQL'
SET 'state.checkpoints.dir' = 'ckpt';
SET 'state.savepoints.dir' = 'sp';
SET 'execution.checkpointing.interval' = '200 ms';
CREATE TABLE rates (
  id BIGINT, currency_time TIMESTAMP(3),
  currency AS CONCAT('c', CAST(id % 5 AS STRING)), rate AS id * 3,
  WATERMARK FOR currency_time AS currency_time - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'number-of-rows' = '6000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000',
        'fields.currency_time.kind' = 'sequence', 'fields.currency_time.start' = '1000000',
        'fields.currency_time.end' = '1005999');
CREATE TABLE orders (
  id BIGINT, order_time TIMESTAMP(3),
  currency AS CONCAT('c', CAST(id * 7 % 6 AS STRING)),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'number-of-rows' = '6000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000',
        'fields.order_time.kind' = 'sequence', 'fields.order_time.start' = '1000000',
        'fields.order_time.end' = '1005999');
CREATE TABLE dst (order_id BIGINT, currency STRING, rate BIGINT, valid_from TIMESTAMP(3), tag STRING)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
CREATE VIEW versioned_rates AS
SELECT currency, rate, currency_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rownum
  FROM rates)
WHERE rownum = 1;
INSERT INTO dst
SELECT o.id, o.currency, r.rate, r.currency_time, 'v1'
FROM orders AS o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
SQL
# The compatible change: a filter that passes every rate, in the view.
sed "s/^  FROM rates)/  FROM rates WHERE rate > 0)/; s/'v1'/'v2'/" v1.sql > v2.sql
# Incompatible: the view keyed by the currency's number (BIGINT), not its name.
sed "s/rate AS id \* 3,/rate AS id * 3, cur_no AS id % 5,/;
     s/^SELECT currency, rate, currency_time FROM (/SELECT cur_no, rate, currency_time FROM (/;
     s/ROW_NUMBER() OVER (PARTITION BY currency/ROW_NUMBER() OVER (PARTITION BY cur_no/;
     s/ON o.currency = r.currency;/ON o.id * 7 % 6 = r.cur_no;/; s/r.rate, r.currency_time, 'v1'/r.rate, r.currency_time, 'v3'/" \
    v1.sql > key.sql
# Incompatible: the versions keep the rate's id too.
sed "s/^SELECT currency, rate, currency_time FROM (/SELECT currency, rate, currency_time, id FROM (/" v1.sql > cols.sql
grep -q 'WHERE rate > 0' v2.sql && grep -q 'PARTITION BY cur_no' key.sql && grep -q 'cur_no AS id % 5' key.sql && grep -q 'currency_time, id FROM' cols.sql ||
    fail "the changed queries were not written"

# The reference: v1 uninterrupted (the rate limit changes no row).
sed "s/'rows-per-second' = '1000', //" v1.sql > ref.sql
"$WEIR" run ref.sql -D state.checkpoints.dir=ref-ckpt > /dev/null 2> log || fail "the reference run failed"
visible | sed 's/,v1$//' > ref.txt
[ "$(wc -l < ref.txt)" -eq 6000 ] || fail "the reference run wrote $(wc -l < ref.txt) rows, not 6000"
# Spot checks of the rule, worked by hand: order 6 (time 1000005, c0) takes
# rate id 5 (time 1000004, c0, rate 15); order 5 (c5) has none.
grep -qx '6,c0,15,1970-01-01 00:16:40.004' ref.txt || fail "order 6 is not joined with rate 15: $(grep '^6,' ref.txt)"
grep -qx '5,c5,,' ref.txt || fail "order 5 (c5, no rate) is not padded: $(grep '^5,' ref.txt)"
rm -rf out

# v1 with its rate limit, stopped with a savepoint (weir savepoint PID
# --stop, the user's way) after its first checkpoint; that savepoint is the
# restore point. WEIR_VVIEW_KILL=1 kills v1 with SIGKILL 50 ms after its
# first checkpoint instead and restores that checkpoint (copied aside:
# retention would delete it).
if [ -n "${WEIR_VVIEW_KILL:-}" ]; then
    CRASH_CKPT_DIR=ckpt
    crash_kill_one 50 "$WEIR" run v1.sql
    [ $? -eq 137 ] || fail "v1 ended before it was killed"
    mkdir saved && cp -r "ckpt/chk-$(newest_checkpoint ckpt)" saved/ || fail "no checkpoint to restore"
    spath=$(echo saved/chk-*)
else
    crash_savepoint --stop "$WEIR" run v1.sql
    spath=$sp
fi
visible > before.txt
n_before=$(wc -l < before.txt)
[ "$n_before" -gt 0 ] && [ "$n_before" -lt 6000 ] || fail "the savepoint came after $n_before rows, not halfway"

refused() { # $1: job file, $2...: what the message must say
    local job=$1 st
    shift
    "$WEIR" run "$job" --from "$spath" > /dev/null 2> log
    st=$?
    [ $st -eq 3 ] || fail "$job: a changed query exited $st, not 3 (refused)"
    grep -qF -- "$spath does not fit this job: TemporalJoin[0]: " log || fail "$job: the refusal does not name the join"
    for said in "$@"; do
        grep -qF -- "$said" log || fail "$job: the refusal does not say: $said"
    done
    grep -qF -- "run with --fresh, or --allow-non-restored-state to drop it" log ||
        fail "$job: the refusal does not name the ways out"
    visible | cmp -s - before.txt || fail "$job: the refused run changed the output"
}
refused key.sql "key of input 1 (STRING) in the checkpoint, (BIGINT) now" \
    "input 1 (STRING, BIGINT, TIMESTAMP(3)) in the checkpoint, (BIGINT, BIGINT, TIMESTAMP(3)) now"
refused cols.sql "input 1 (STRING, BIGINT, TIMESTAMP(3)) in the checkpoint, (STRING, BIGINT, TIMESTAMP(3), BIGINT) now"

# The compatible change resumes, on the other state backend.
"$WEIR" run v2.sql --from "$spath" -D state.backend.type=rocksdb -D weir.state.dir=state > /dev/null 2> log ||
    fail "the compatible change was refused"
grep -q "restoring from \(savepoint\|checkpoint\) $spath" log || fail "the restore did not say where it resumes from"
visible > got.txt
grep -q ',v1$' got.txt && grep -q ',v2$' got.txt || fail "expected rows of both queries: $(grep -c ',v1$' got.txt) v1, $(grep -c ',v2$' got.txt) v2"
# (a restored checkpoint commits on recovery what it covers and the kill
# kept from view: more v1 rows than before the restore, never other ones)
[ -z "$(comm -23 before.txt <(grep ',v1$' got.txt))" ] || fail "the restore changed the rows committed before the savepoint"
sed 's/,v[12]$//' got.txt | LC_ALL=C sort | cmp -s - ref.txt ||
    { diff <(sed 's/,v[12]$//' got.txt | LC_ALL=C sort) ref.txt | head; fail "the restored join differs from an uninterrupted run"; }
echo "  compatible change: $n_before rows before the savepoint, $(grep -c ',v2$' got.txt) after, equal to the reference"

# The opt-in drops the join's state, says so, and the orders still to come
# (from the savepoint's source positions on) are joined, into the folder
# whose files the savepoint's sink state knows (committed already by the
# restore above: committing them again changes nothing).
"$WEIR" run key.sql --from "$spath" --allow-non-restored-state -D state.checkpoints.dir=ckpt-key > /dev/null 2> log ||
    fail "--allow-non-restored-state failed"
grep -q "dropping the state of TemporalJoin\[0\] from $spath (--allow-non-restored-state)" log ||
    fail "--allow-non-restored-state did not say what it dropped"
grep -q "unknown configuration key" log && fail "--allow-non-restored-state warned of its own key"
# The orders the join held at the savepoint went with its state; the ones
# read after it come out: ids first..6000, each once, past every id
# committed before the savepoint.
first=$(visible | grep ',v3$' | cut -d, -f1 | sort -n | head -1)
last_before=$(cut -d, -f1 before.txt | sort -n | tail -1)
visible | grep ',v3$' | cut -d, -f1 | sort -n | cmp -s - <(seq "${first:-1}" 6000) ||
    fail "without the join's state: the orders after the savepoint are not $first..6000, each once"
[ "$first" -gt "$last_before" ] || fail "without the join's state: order $first came out again"
visible | grep -v ',v3$' | cmp -s - got.txt || fail "without the join's state: the committed rows changed"
echo "test_versioned_view_restore: passed"
