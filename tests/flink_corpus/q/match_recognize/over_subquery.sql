-- Queries > Pattern Recognition: MATCH_RECOGNIZE over a subquery in FROM
-- oracle: VALUES ('ACME', '2024-01-01 10:00:00', '2024-01-01 10:00:02'), ('ACME', '2024-01-01 10:00:03', '2024-01-01 10:00:05'), ('ACME', '2024-01-01 10:00:06', '2024-01-01 10:00:12'), ('BETA', '2024-01-01 10:00:04', '2024-01-01 10:00:07')
SELECT * FROM (SELECT symbol, price, rowtime FROM ticker WHERE price > 10) MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.rowtime AS a_ts, B.rowtime AS b_ts
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B)
  DEFINE B AS B.price > A.price) AS T;
