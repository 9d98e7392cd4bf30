-- MATCH_RECOGNIZE: a greedy and a reluctant B* (Flink's Pattern Recognition
-- page). Hand-derived: A is 11 (10:00:03) in both. Greedy B* takes 12, 13,
-- 14 (all below 15) and C is 16. Reluctant B*? stops as soon as C holds:
-- 12 is no C (not above 12), so B takes 12 and C is 13; matching resumes
-- past it at 14 (an A) and C is 16 at once: a second match.
CREATE TABLE ticker (symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'ticker.csv', 'format' = 'csv');
SELECT 'greedy' AS q, symbol, a_price, last_price, nb FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.price AS a_price, C.price AS last_price, COUNT(B.*) AS nb
  PATTERN (A B* C)
  DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)
UNION ALL
SELECT 'reluctant' AS q, symbol, a_price, last_price, nb FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.price AS a_price, C.price AS last_price, COUNT(B.*) AS nb
  PATTERN (A B*? C)
  DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12);
