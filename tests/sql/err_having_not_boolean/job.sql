-- HAVING takes a BOOLEAN condition: a number is refused where it stands
-- (the planner said only "invalid argument", without a place).
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, SUM(v) FROM t GROUP BY k HAVING SUM(v) / 2;
