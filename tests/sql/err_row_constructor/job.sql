-- A row constructor's IN (SELECT ...) is a semi or anti join: as a value
-- (in the SELECT list, under OR, in HAVING) it is refused where it stands,
-- naming the construct.
CREATE TABLE o (id INT, k INT, x INT) WITH (
  'connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, (k, x) IN (SELECT k, p FROM t) AS v FROM o;
