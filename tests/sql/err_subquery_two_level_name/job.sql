-- A subquery two levels down reads the outermost query by an unqualified
-- name: refused, naming the rule and the qualified name to write.
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o WHERE EXISTS (SELECT 1 FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.v = id));
