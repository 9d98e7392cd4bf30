-- Queries > Pattern Recognition: without PARTITION BY
-- oracle: VALUES ('BETA', 'ACME')
SELECT * FROM ticker MATCH_RECOGNIZE (
  ORDER BY rowtime
  MEASURES A.symbol AS s1, B.symbol AS s2
  PATTERN (A B)
  DEFINE A AS A.price > 20, B AS B.price < 5) AS T;
