-- EXPLAIN shows MATCH_RECOGNIZE as the Match operator (Flink's name), keyed
-- by PARTITION BY, with its pattern (quantifiers as {min,max}, a reluctant
-- one with '?'), its AFTER MATCH SKIP and WITHIN.
CREATE TABLE ticker (symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'ticker.csv', 'format' = 'csv');
EXPLAIN SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p, COUNT(B.*) AS n
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B*? C{2}) WITHIN INTERVAL '10' SECOND
  DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12);
