-- CASE over x = 'literal' (every WHEN the same subject) is one lookup per
-- row, and IN over string literals a hash set; the results are those of
-- going WHEN by WHEN. The first of two equal literals wins (row 1 never
-- gets 'never'); a literal may stand left of the =; a NULL subject (row 4)
-- matches no WHEN; the guarded division runs only for the rows whose
-- subject is 'apple' (rows 5 and 8 have n = 3 and would divide by zero);
-- the empty string is a value like any other (row 7). `x NOT IN (.., NULL)`
-- is NULL unless x is listed. The last CASE mixes another condition in,
-- so it is evaluated WHEN by WHEN.
CREATE TABLE t (id INT, ch STRING, n INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT
  id,
  CASE WHEN LOWER(x) = 'apple' THEN CAST(10 / (n - 3) AS STRING)
       WHEN 'google' = LOWER(x) THEN 'g'
       WHEN LOWER(x) = 'apple' THEN 'never'
       WHEN LOWER(x) = '' THEN 'empty'
       ELSE CONCAT('else:', COALESCE(x, 'null')) END AS a,
  CASE x WHEN 'baidu' THEN 1 WHEN 'Baidu' THEN 2 END AS b,
  LOWER(x) IN ('apple', 'baidu') AS c,
  x NOT IN ('Apple', CAST(NULL AS STRING)) AS d,
  CASE WHEN LOWER(x) = 'apple' THEN 'A' WHEN n = 0 THEN 'zero' ELSE 'z' END AS e
FROM (SELECT id, NULLIF(ch, '-') AS x, n FROM t);
