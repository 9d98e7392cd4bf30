-- Queries > Pattern Recognition: time constraint WITHIN
-- oracle: VALUES ('ACME', '2024-01-01 10:00:08', 14)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES C.rowtime AS drop_ts, A.price - C.price AS drop_by
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '5' SECOND
  DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10) AS T;
