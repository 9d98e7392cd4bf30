-- A row constructor's IN (SELECT ...) takes one column of the subquery per
-- field, as a WHERE condition (a semi or anti join) and as a value (in the
-- SELECT list, under OR, in HAVING); another count is refused, naming it.
CREATE TABLE o (id INT, k INT, x INT) WITH (
  'connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, (k, x) IN (SELECT k FROM t GROUP BY k) AS v FROM o;
