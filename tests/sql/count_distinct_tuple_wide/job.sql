-- COUNT(DISTINCT ...) of more values than a function call takes (16):
-- 64 (the most it counts; docs/sql.md), the tuple of v + 0 .. v + 62 and
-- s counting as (v, s) does, and 17, whose last value NULL leaves a row
-- out as the first's would.
CREATE TABLE t (k STRING, v INT, s STRING, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT k, COUNT(DISTINCT v, s), COUNT(DISTINCT v + 0, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7, v + 8, v + 9, v + 10, v + 11, v + 12, v + 13, v + 14, v + 15, v + 16, v + 17, v + 18, v + 19, v + 20, v + 21, v + 22, v + 23, v + 24, v + 25, v + 26, v + 27, v + 28, v + 29, v + 30, v + 31, v + 32, v + 33, v + 34, v + 35, v + 36, v + 37, v + 38, v + 39, v + 40, v + 41, v + 42, v + 43, v + 44, v + 45, v + 46, v + 47, v + 48, v + 49, v + 50, v + 51, v + 52, v + 53, v + 54, v + 55, v + 56, v + 57, v + 58, v + 59, v + 60, v + 61, v + 62, s),
       COUNT(DISTINCT v, d) FILTER (WHERE s <> 'y' OR s IS NULL), COUNT(DISTINCT v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, CASE WHEN s = 'y' THEN NULL ELSE d END)
FROM t GROUP BY k;
