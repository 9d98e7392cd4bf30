-- LEFT JOIN LATERAL of rows (no aggregates) whose WHERE holds a subquery is
-- refused, naming the forms that run (aggregates without GROUP BY, or rows
-- of an inner join).
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT o.id, x.v FROM o LEFT JOIN LATERAL (SELECT l.v FROM l
  WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t)) AS x ON TRUE;
