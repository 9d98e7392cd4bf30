-- GROUP BY CUBE(k, c): the sets (k, c), (k), (c) and ().
CREATE TABLE t (k STRING, c STRING)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT k, c, COUNT(*) AS n, GROUPING(k) AS gk, GROUPING(c) AS gc
FROM t
GROUP BY CUBE(k, c);
