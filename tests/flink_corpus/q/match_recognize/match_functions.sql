-- Queries > Pattern Recognition: MATCH_ROWTIME() and CLASSIFIER-style measures
-- oracle: VALUES ('ACME', '2024-01-01 10:00:06', 25), ('BETA', '2024-01-01 10:00:07', 21), ('ACME', '2024-01-01 10:00:12', 30)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES MATCH_ROWTIME() AS mt, A.price AS p
  PATTERN (A)
  DEFINE A AS A.price > 20) AS T;
