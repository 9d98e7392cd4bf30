-- A row constructor ((a, b) IN (SELECT x, y ...), (a, b) = (c, d)) is
-- refused where it stands, naming the construct.
CREATE TABLE o (id INT, k INT, x INT) WITH (
  'connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id FROM o WHERE (k, x) IN (SELECT k, p FROM t);
