-- A scalar subquery of one aggregate whose input has no row is NULL, as in
-- Flink's streaming mode (the aggregation without GROUP BY emits nothing
-- before its first row); COALESCE gives batch SQL's 0. A correlated one's
-- COUNT over no inner rows is 0. The top-level aggregate over no rows
-- prints nothing. t: x = 1, 2, 7.
CREATE TABLE t (x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT COUNT(*) FROM t WHERE x > 100;
SELECT x, (SELECT COUNT(*) FROM t WHERE x > 100) AS c,
       COALESCE((SELECT COUNT(*) FROM t WHERE x > 100), 0) AS c0,
       (SELECT MAX(x) FROM t WHERE x > 100) AS m
FROM t WHERE x < 5;
SELECT o.x, (SELECT COUNT(*) FROM t i WHERE i.x = o.x + 100) AS n FROM t o;
