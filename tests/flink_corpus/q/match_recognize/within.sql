-- Queries > Pattern Recognition: time constraint WITHIN
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES C.rowtime AS drop_ts, A.price - C.price AS drop_by
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '5' SECOND
  DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10) AS T;
