-- Queries > Pattern Recognition: reluctant quantifier
-- oracle: VALUES ('BETA', 20, 19)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS first_price, LAST(B.price) AS last_b
  PATTERN (A B+? C)
  DEFINE A AS A.price > 10, B AS B.tax = 2, C AS C.price > 20) AS T;
