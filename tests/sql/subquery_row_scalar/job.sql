-- A row compared with a scalar subquery ((a, b) = (SELECT x, y ...)): the
-- subquery's one row (NULLs over no rows) compared field by field, as SQL
-- compares rows. The check folds the changelogs. Worked by hand:
--   o (id, k, x): (1,1,3) (2,1,4) (3,NULL,3) (4,2,3); t (k, p): (1,3) (2,5).
--   out_eq: (k, x) = the row (1, 3) of p = 3: 1 TRUE; 2 FALSE (4 <> 3);
--     3 NULL (NULL = 1 is unknown, 3 = 3); 4 FALSE (2 <> 1).
--   out_lt: (x, x) < (MIN(p), MAX(p)) of o's k (correlated): k 1 gives
--     (3, 3): 1 FALSE (equal), 2 FALSE; 3 (NULL k: no rows, (NULL, NULL))
--     NULL; k 2 gives (5, 5): 4 TRUE.
--   out_where: (k, x) <> (2, 5 - 2): 1 and 2 TRUE; 3 NULL (NULL <> 2,
--     3 <> 3 FALSE) and 4 FALSE are dropped.
--   out_none: (k, x) = (SELECT ... WHERE p = 99), no row: NULL for each.
CREATE TABLE o (id INT, k INT, x INT) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE out_eq (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_eq', 'format' = 'debezium-json');
CREATE TABLE out_lt (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_lt', 'format' = 'debezium-json');
CREATE TABLE out_where (id INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_where', 'format' = 'debezium-json');
CREATE TABLE out_none (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_none', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_eq SELECT id, (k, x) = (SELECT k, p FROM t WHERE p = 3) AS v FROM o;
  INSERT INTO out_lt SELECT id, (x, x) < (SELECT MIN(p), MAX(p) FROM t WHERE t.k = o.k) AS v FROM o;
  INSERT INTO out_where SELECT id FROM o WHERE (k, x) <> (SELECT k, p - 2 FROM t WHERE p = 5);
  INSERT INTO out_none SELECT id, ROW(k, x) = (SELECT k, p FROM t WHERE p = 99) AS v FROM o;
END;
