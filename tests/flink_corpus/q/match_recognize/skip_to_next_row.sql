-- Queries > Pattern Recognition: AFTER MATCH SKIP TO NEXT ROW with {n} quantifier
-- oracle: VALUES ('ACME', '2024-01-01 10:00:08')
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.rowtime) AS t0
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A{3})
  DEFINE A AS A.price < 3) AS T;
