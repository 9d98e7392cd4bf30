-- INTERSECT, EXCEPT and their ALL forms: the examples of Flink's "Set
-- Operations" page (t1 = c, a, b, b, c; t2 = d, e, a, b, b), which give
--   INTERSECT      a, b
--   INTERSECT ALL  a, b, b      (b: min(2, 2) = 2)
--   EXCEPT         c
--   EXCEPT ALL     c, c         (c: 2 - 0; a: 1 - 1; b: 2 - 2)
-- plus NULLs, which compare equal in set operations (t3 = NULL, NULL, x;
-- t4 = NULL): t3 EXCEPT ALL t4 = NULL, x; t3 INTERSECT t4 = NULL.
-- The results are changelogs (a row of t2 retracts an EXCEPT row seen
-- before it); the check folds each into its table, which is the same
-- whichever input comes first.
CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');
CREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');
CREATE VIEW t3(s) AS VALUES (CAST(NULL AS STRING)), (CAST(NULL AS STRING)), ('x');
CREATE VIEW t4(s) AS VALUES (CAST(NULL AS STRING));
CREATE TABLE out_intersect (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_intersect', 'format' = 'debezium-json');
CREATE TABLE out_intersect_all (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_intersect_all', 'format' = 'debezium-json');
CREATE TABLE out_except (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_except', 'format' = 'debezium-json');
CREATE TABLE out_except_all (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_except_all', 'format' = 'debezium-json');
CREATE TABLE out_null_except_all (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_null_except_all', 'format' = 'debezium-json');
CREATE TABLE out_null_intersect (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_null_intersect', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_intersect (SELECT s FROM t1) INTERSECT (SELECT s FROM t2);
  INSERT INTO out_intersect_all (SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2);
  INSERT INTO out_except (SELECT s FROM t1) EXCEPT (SELECT s FROM t2);
  INSERT INTO out_except_all (SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2);
  INSERT INTO out_null_except_all SELECT s FROM t3 EXCEPT ALL SELECT s FROM t4;
  INSERT INTO out_null_intersect SELECT s FROM t3 INTERSECT SELECT s FROM t4;
END;
