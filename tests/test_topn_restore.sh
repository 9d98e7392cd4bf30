#!/usr/bin/env bash
# tests/test_topn_restore.sh WEIR SOURCE_DIR - the retractable Top-N's state
# in checkpoints. A job watching a folder (source.monitor-interval) ranks
# the top 3 items per category by SUM(v) (an updating input) and the top 4
# overall (ORDER BY ... LIMIT), into debezium-json files. It is stopped
# with SIGTERM (a final checkpoint) once its output shows the first file's
# result; a second file arrives whose negative amounts push items down, so
# rows kept below the bound must climb back - they come from the restored
# state only. The rerun from the checkpoint must fold to the table of a
# bounded run over both files. Every wait polls the output (bounded).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
restore_init topn-restore "$1"
command -v jq > /dev/null || fail "jq is needed (scripts/install-deps.sh)"

# rows(SEED, N, SIGN): category, item, amount
rows() { awk -v s="$1" -v n="$2" -v sg="$3" 'BEGIN { srand(s); for (i = 0; i < n; i++)
    printf "c%d,i%d,%d\n", int(rand() * 4), int(rand() * 12), sg * (1 + int(rand() * 50)) }'; }
mkdir in
rows 1 3000 1 > in/a.csv
job() { # $1: monitor interval option ("" for bounded), $2: output folder prefix
    cat <<SQL
CREATE TABLE src (cat STRING, item STRING, v BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv'$1);
CREATE TABLE top3 (cat STRING, item STRING, s BIGINT, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = '$2top3', 'format' = 'debezium-json');
CREATE TABLE top4 (cat STRING, item STRING, s BIGINT)
WITH ('connector' = 'filesystem', 'path' = '$2top4', 'format' = 'debezium-json');
CREATE VIEW sums AS SELECT cat, item, SUM(v) AS s FROM src GROUP BY cat, item;
EXECUTE STATEMENT SET BEGIN
INSERT INTO top3 SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY s DESC, item) AS rn FROM sums)
WHERE rn <= 3;
INSERT INTO top4 SELECT cat, item, s FROM sums ORDER BY s DESC, cat, item LIMIT 4;
END;
SQL
}
job ", 'source.monitor-interval' = '50ms'" "" > live.sql
job "" ref_ > ref.sql
# wait_table: until both outputs fold to the reference's tables (at most 60 s)
wait_table() {
    local end=$((SECONDS + 60))
    while [ $SECONDS -lt $end ]; do
        [ "$(fold top3)" = "$(cat ref_top3.txt)" ] && [ "$(fold top4)" = "$(cat ref_top4.txt)" ] && return 0
        sleep 0.2
    done
    return 1
}
reference() {
    rm -rf ref_top3 ref_top4
    "$WEIR" run ref.sql > /dev/null 2> log || fail "the reference run failed"
    fold ref_top3 > ref_top3.txt && fold ref_top4 > ref_top4.txt
    [ "$(wc -l < ref_top3.txt)" -eq 12 ] && [ "$(wc -l < ref_top4.txt)" -eq 4 ] || fail "unexpected reference tables"
}

CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms -D parallelism.default=2)
reference
"$WEIR" run live.sql "${CK[@]}" > /dev/null 2> log &
pid=$!
wait_table || fail "the first run never showed the first file's top items"
stop_run TERM
[ $st -eq 143 ] || fail "SIGTERM with checkpoints exited $st, not 143"
grep -q "final checkpoint chk-[0-9]* committed" log || fail "the stop committed no final checkpoint"
first=$(cat ref_top3.txt)
rows 2 3000 -1 > in/b.csv # items fall: the ones kept below the bound climb back
reference
[ "$first" != "$(cat ref_top3.txt)" ] || fail "the second file does not change the top items"
"$WEIR" run live.sql "${CK[@]}" > /dev/null 2> log &
pid=$!
wait_table || { diff <(fold top3) ref_top3.txt | head; fail "the resumed run does not fold to the bounded run's tables"; }
stop_run INT
[ $st -eq 130 ] || fail "SIGINT with checkpoints exited $st, not 130"
grep -q "restoring from checkpoint" log || fail "the rerun did not resume"
echo "test_topn_restore: stop + restore of the retractable Top-N and ORDER BY ... LIMIT equals a bounded run"
