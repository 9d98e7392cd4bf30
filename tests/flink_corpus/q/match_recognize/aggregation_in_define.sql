-- Queries > Pattern Recognition: aggregations in DEFINE and MEASURES
-- oracle: VALUES ('ACME', '2024-01-01 10:00:00', '2024-01-01 10:00:05', 14), ('ACME', '2024-01-01 10:00:08', '2024-01-01 10:00:10', 2)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.rowtime) AS start_ts, LAST(A.rowtime) AS end_ts, AVG(A.price) AS avg_price
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS AVG(A.price) < 15) AS T;
