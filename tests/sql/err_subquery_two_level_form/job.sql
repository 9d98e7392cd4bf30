-- Correlation two levels up inside a subquery that aggregates (GROUP BY)
-- is refused, naming the forms that run.
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o
WHERE EXISTS (SELECT l.k FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t) GROUP BY l.k);
