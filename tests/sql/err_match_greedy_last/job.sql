-- MATCH_RECOGNIZE refuses what Flink refuses: a greedy quantifier on the
-- last variable of the PATTERN (it would wait for ever for one more row).
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts MEASURES A.v AS a
  PATTERN (A B+) DEFINE B AS B.v > A.v);
