-- Subexpressions repeated between the WHERE and the SELECT, and within the
-- SELECT, are computed once per batch (LOWER(ch) six times, REGEXP_EXTRACT
-- and 100 / d twice each), yet every occurrence still sees only the rows
-- it would evaluate on its own: 100 / d stands behind d = 0 in the WHERE and
-- behind d <> 0 in the CASE, so row 2 (kept, d = 0) never divides, and row 6
-- (d = 0) is dropped by the left side of the AND first. An empty CSV field
-- of a STRING column is the empty string (row 8: no channel, LOWER gives '').
CREATE TABLE t (id INT, ch STRING, d INT, url STRING)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT
  id,
  CASE WHEN LOWER(ch) = 'apple' THEN '0'
       WHEN LOWER(ch) = 'google' THEN '1'
       ELSE REGEXP_EXTRACT(url, '(&|^)cid=([^&]*)', 2) END AS cid,
  CASE WHEN d <> 0 THEN 100 / d ELSE -1 END AS q,
  UPPER(LOWER(ch)) AS up,
  CHAR_LENGTH(LOWER(ch)) + CHAR_LENGTH(LOWER(ch)) AS len2
FROM t
WHERE (REGEXP_EXTRACT(url, '(&|^)cid=([^&]*)', 2) IS NOT NULL OR LOWER(ch) IN ('apple', 'google'))
  AND (d = 0 OR 100 / d > 10);
