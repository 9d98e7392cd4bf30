-- Queries > Pattern Recognition: MATCH_ROWTIME() and CLASSIFIER-style measures
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES MATCH_ROWTIME() AS mt, A.price AS p
  PATTERN (A)
  DEFINE A AS A.price > 20) AS T;
