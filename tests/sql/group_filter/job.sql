-- Aggregate FILTER (WHERE ...) in an updating GROUP BY: each aggregate sees
-- only its rows; the COUNT(DISTINCT v)s share one distinct view.
CREATE TABLE t (k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT k,
       COUNT(*) FILTER (WHERE v > 4) AS big,
       COUNT(DISTINCT v) AS dv,
       COUNT(DISTINCT v) FILTER (WHERE v >= 5) AS dv5,
       SUM(v) FILTER (WHERE v < 10) AS small,
       MAX(v) FILTER (WHERE v IS NULL) AS none
FROM t GROUP BY k;
