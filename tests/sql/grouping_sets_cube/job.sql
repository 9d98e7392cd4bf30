-- GROUP BY CUBE(k, c): the sets (k, c), (k), (c) and (). k is NOT NULL, but
-- NULL in the rows of the sets without it: the result column is nullable.
CREATE TABLE t (k STRING NOT NULL, c STRING)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');

SELECT k, c, COUNT(*) AS n, GROUPING(k) AS gk, GROUPING(c) AS gc
FROM t
GROUP BY CUBE(k, c);
