-- AFTER MATCH SKIP TO LAST B where the match maps no row to B (B? is
-- optional): the first match is rows 1 and 2 (A = 5, then C = 3 < 5
-- without a B: row 2 fails B AS B.v > A.v), so there is no row to skip
-- to and the job fails there, naming the clause and the match's first
-- row. Flink's MATCH_RECOGNIZE fails the job alike ("Could not skip to B.
-- No such element in the found match").
CREATE TABLE t (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(A.id) AS first_id, LAST(C.id) AS last_id
  AFTER MATCH SKIP TO LAST B
  PATTERN (A B? C)
  DEFINE B AS B.v > A.v, C AS C.v < A.v
) AS m;
