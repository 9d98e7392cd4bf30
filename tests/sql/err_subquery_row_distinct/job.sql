-- A row compared with a scalar subquery takes one field per column of a
-- SELECT; with DISTINCT (whose one row could differ from each column's own)
-- it is refused, naming DISTINCT.
CREATE TABLE o (id INT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE t (k INT, p INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o WHERE (k, x) = (SELECT DISTINCT k, p FROM t);
