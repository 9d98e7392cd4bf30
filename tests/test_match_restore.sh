#!/usr/bin/env bash
# tests/test_match_restore.sh WEIR SOURCE_DIR - MATCH_RECOGNIZE's state in
# checkpoints. A job watching a folder (source.monitor-interval) matches
# rising runs per partition (PATTERN (S U{2,} D) ... WITHIN) into JSON
# files. Once its committed output shows matches of the first file, SIGTERM
# stops it (a final checkpoint): rows not yet released and the partial
# matches of every partition are in the checkpoint. A second file arrives
# (its last row, of a partition the query filters out, moves the watermark
# past every other row) and the job resumes from the checkpoint at another
# parallelism (key groups move). The output of both runs must equal the
# output of one bounded run over both files. The second file goes to
# another source subtask than the first: the first one's subtask holds its
# watermark (restored) until the idle timeout passes, as in a run that was
# not stopped (without the timeout neither run gets past the first file).
# Every wait polls (bounded).
set -u
. "$(cd "$2" && pwd)/tests/support/crash.sh"
restore_init match-restore "$1"

# rows(SEED, N, FIRST_ID, FIRST_SECOND): id, k, v, ts - in time order
rows() { awk -v s="$1" -v n="$2" -v id="$3" -v t0="$4" 'BEGIN { srand(s); t = t0; for (i = 0; i < n; i++) {
    t += int(rand() * 3); printf "%d,k%d,%d,2024-01-01 %02d:%02d:%02d\n", id + i, int(rand() * 5), int(rand() * 10),
    int(t / 3600), int(t / 60) % 60, t % 60 } }'; }
mkdir in
rows 1 600 1 0 > in/a.csv
job() { # $1: monitor interval option ("" for bounded), $2: output folder
    cat <<SQL
CREATE TABLE src (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv'$1);
CREATE TABLE out (k STRING, fid INT, lid INT, nu BIGINT, su INT, d INT)
WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'json');
CREATE VIEW real_rows AS SELECT * FROM src WHERE k <> 'end';
INSERT INTO out SELECT * FROM real_rows MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts, id
  MEASURES FIRST(id) AS fid, LAST(id) AS lid, COUNT(U.*) AS nu, SUM(U.v) AS su, D.v AS d
  AFTER MATCH SKIP TO LAST U
  PATTERN (S U{2,} D) WITHIN INTERVAL '40' SECOND
  DEFINE U AS U.v >= PREV(U.v), D AS D.v < LAST(U.v) - 3);
SQL
}
job ", 'source.monitor-interval' = '50ms', 'scan.watermark.idle-timeout' = '300ms'" live > live.sql
job "" ref > ref.sql
table() { find "$1" -maxdepth 1 -type f ! -name '.*' -exec cat {} + 2> /dev/null | LC_ALL=C sort; }

CK=(-D state.checkpoints.dir=ckpt -D execution.checkpointing.interval=100ms)
"$WEIR" run live.sql "${CK[@]}" -D parallelism.default=2 > /dev/null 2> log &
pid=$!
end=$((SECONDS + 60))
until [ -n "$(table live)" ] || [ $SECONDS -ge $end ]; do sleep 0.1; done
[ -n "$(table live)" ] || fail "the first run committed no match"
sleep 0.3
stop_run TERM
[ $st -eq 143 ] || fail "SIGTERM with checkpoints exited $st, not 143"
grep -q "final checkpoint chk-[0-9]* committed" log || fail "the stop committed no final checkpoint"
first=$(table live | wc -l)
{ rows 2 600 601 1000; echo "9999,end,0,2024-01-02 00:00:00"; } > b.tmp
mv b.tmp in/b.csv
"$WEIR" run ref.sql > /dev/null 2> reflog || { cat reflog; fail "the bounded run failed"; }
want=$(table ref)
[ "$(echo "$want" | wc -l)" -gt $((first + 20)) ] || fail "the second file adds too few matches"
"$WEIR" run live.sql "${CK[@]}" -D parallelism.default=4 > /dev/null 2> log &
pid=$!
end=$((SECONDS + 60))
until [ "$(table live)" = "$want" ] || [ $SECONDS -ge $end ]; do sleep 0.2; done
got=$(table live)
stop_run INT
grep -q "restoring from checkpoint" log || fail "the rerun did not resume"
[ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got") | head; fail "stop + restore differs from a bounded run"; }
echo "test_match_restore: MATCH_RECOGNIZE stopped with $first matches and restored at another parallelism equals a bounded run ($(echo "$want" | wc -l) matches)"
