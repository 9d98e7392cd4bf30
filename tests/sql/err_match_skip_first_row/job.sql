-- AFTER MATCH SKIP TO FIRST A where A is the pattern's first variable:
-- the first match (rows 1 and 2: A = 5, B = 3 < 5) would resume at its own
-- first row, so the job fails there, before emitting the match, naming
-- the clause and the row (its time). Flink's MATCH_RECOGNIZE fails the job
-- alike ("Could not skip to first element of a match"); neither refuses
-- the query when it is planned.
CREATE TABLE t (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(A.id) AS first_id, LAST(B.id) AS last_id
  AFTER MATCH SKIP TO FIRST A
  PATTERN (A B)
  DEFINE B AS B.v < A.v
) AS m;
