-- A subquery with GROUP BY whose FROM is a derived table reading the
-- outer query's columns: refused, naming the form and where correlation
-- is supported.
CREATE TABLE o (id INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE t (k INT, g INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o WHERE EXISTS (SELECT d.g FROM (SELECT t.g FROM t WHERE t.k = o.k) AS d GROUP BY d.g);
