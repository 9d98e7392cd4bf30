-- A bare name two subquery levels down binds to the nearest enclosing
-- scope that has it, also when the same query names the outermost
-- query's column of that name qualified (the outermost query's x is
-- carried into the middle level beside the middle level's own x).
--   t1 (id, x): (1,10) (2,20) (3,30)
--   t2 (id, x): (1,100) (2,5) (3,300)
--   t3 (id, y): (1,100) (2,5) (3,30)
-- nearest: t3.y = x is t3.y = t2.x (t3 has no x); t1.x > 0 always:
--   id 1: t2.x 100, t3 has y 100 -> yes; id 2: t2.x 5, y 5 -> yes;
--   id 3: t2.x 300, no y 300 -> no.   (x taken as t1.x would give 3 only)
-- both: t3.id = t2.id AND (t3.y = x OR t3.y = t1.x):
--   id 1: 100 = 100; id 2: 5 = 5; id 3: 30 = t1.x 30 -> 1, 2, 3.
CREATE TABLE t1 (id INT, x INT) WITH ('connector' = 'filesystem', 'path' = 't1.csv', 'format' = 'csv');
CREATE TABLE t2 (id INT, x INT) WITH ('connector' = 'filesystem', 'path' = 't2.csv', 'format' = 'csv');
CREATE TABLE t3 (id INT, y INT) WITH ('connector' = 'filesystem', 'path' = 't3.csv', 'format' = 'csv');
CREATE TABLE nearest (id INT) WITH ('connector' = 'print', 'print-identifier' = 'nearest');
CREATE TABLE both_ (id INT) WITH ('connector' = 'print', 'print-identifier' = 'both');
INSERT INTO nearest SELECT t1.id FROM t1 WHERE EXISTS (
  SELECT 1 FROM t2 WHERE t2.id = t1.id AND EXISTS (
    SELECT 1 FROM t3 WHERE t3.y = x AND t1.x > 0));
INSERT INTO both_ SELECT t1.id FROM t1 WHERE EXISTS (
  SELECT 1 FROM t2 WHERE t2.id = t1.id AND EXISTS (
    SELECT 1 FROM t3 WHERE t3.id = t2.id AND (t3.y = x OR t3.y = t1.x)));
