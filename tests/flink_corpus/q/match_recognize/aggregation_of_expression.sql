-- Queries > Pattern Recognition: an aggregation over an expression of one variable's columns (SUM(A.price * A.tax))
-- oracle: VALUES ('ACME', '2024-01-01 10:00:00', 59), ('ACME', '2024-01-01 10:00:06', 58), ('BETA', '2024-01-01 10:00:01', 40), ('BETA', '2024-01-01 10:00:07', 21)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.rowtime) AS start_ts, SUM(A.price * A.tax) AS taxed
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS SUM(A.price * A.tax) < 60) AS T;
