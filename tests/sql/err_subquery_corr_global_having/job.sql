-- A correlated scalar subquery of aggregates with HAVING and no GROUP BY
-- (one row even over no inner rows, which HAVING keeps or drops): refused
-- by name.
CREATE TABLE o (id INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE t (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id, (SELECT SUM(v) FROM t WHERE t.k = o.k HAVING COUNT(*) > 1) FROM o;
