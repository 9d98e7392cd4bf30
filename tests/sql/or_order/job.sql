-- AND/OR whose operands cannot fail test the cheap ones first (the result
-- is the same in three-valued logic); q21's shape: the regular expression
-- runs only for the rows that LOWER(x) IN (..) leaves open, and the CASE
-- shares it. An AND/OR with an operand that can fail keeps its order: the
-- division in `n <> 3 AND ..` is guarded for rows 1, 3 and 4 (n = 3), though
-- the regular expression before it is the expensive operand. Row 5 (x NULL)
-- has channel_id= (an empty match, not NULL); row 6's empty url matches
-- nothing; NULL x is neither listed nor equal. Row 4 is filtered out.
CREATE TABLE t (id INT, ch STRING, url STRING, n INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT
  id,
  CASE WHEN LOWER(x) = 'apple' THEN '0' WHEN LOWER(x) = 'google' THEN '1'
       ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END AS cid,
  (REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NULL AND x = 'other') AS lone,
  (REGEXP(url, 'y=') OR n <> 3 AND 10 / (n - 3) > 0) AS guarded
FROM (SELECT id, NULLIF(ch, '-') AS x, url, n FROM t)
WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
   OR LOWER(x) IN ('apple', 'google', 'baidu');
