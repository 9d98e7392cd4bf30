-- A correlated subquery with ORDER BY ... LIMIT (its first rows for each
-- outer row) is refused, naming the form.
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o
WHERE EXISTS (SELECT l.k FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t) ORDER BY l.v LIMIT 1);
