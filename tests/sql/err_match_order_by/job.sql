-- MATCH_RECOGNIZE must be ordered by the event-time attribute first, ascending.
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY v MEASURES A.v AS a
  PATTERN (A) DEFINE A AS A.v > 0);
