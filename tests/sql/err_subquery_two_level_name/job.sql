-- A subquery two levels down reads the outermost query by an unqualified
-- name, where the FROM of a level between is a query with WITH (whose
-- column names weir tells only by planning it): refused, naming the rule
-- and the qualified name to write. (Over tables, joins and subqueries a
-- bare name resolves as scopes nest: subquery_scopes.)
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM o WHERE EXISTS (SELECT 1 FROM l WHERE l.k = o.k AND l.v IN
  (SELECT rr.v FROM (WITH w AS (SELECT v FROM r) SELECT v FROM w) AS rr WHERE rr.v = id));
