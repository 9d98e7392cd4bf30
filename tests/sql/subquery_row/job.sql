-- Row constructors, as Flink (Calcite) reads them: (a, b) and ROW(a, b)
-- compared field by field, and (a, b) [NOT] IN (SELECT x, y ...) as a
-- semi or anti join on both pairs. The semi / anti joins give changelogs;
-- the check folds each into its table. Worked by hand (o: id, k, x;
-- t: k, p):
--   o: (1,1,10) (2,1,20) (3,2,10) (4,NULL,10) (5,2,NULL) (6,3,30)
--   t: (1,10) (2,20) (2,NULL) (3,30) (NULL,10)
--   A row comparison (k, x) = (c, d) is FALSE when a pair holds two
--   different values, else NULL when a field is NULL, else TRUE; IN is
--   TRUE when some row compares TRUE, FALSE when all compare FALSE.
--   out_in: (1,10) and (3,30) are in t: 1, 6. (2,10) meets (2,NULL) and
--     (NULL,10) with NULL: not TRUE; (NULL,10), (2,NULL) likewise.
--   out_not_in: only (1,20) compares FALSE with every row of t: 2.
--   out_not_in_nn: t without NULLs ((1,10) (2,20) (3,30)): (1,20) and
--     (2,10) differ from all: 2, 3; (NULL,10) meets (1,10) with NULL,
--     (2,NULL) meets (2,20) with NULL.
--   out_cmp: eq (k, x) = (2, 10), ne (k, x) <> (1, 10), lt (k, x) < (2, 10),
--     ge ROW(k, x) >= ROW(1, 20) - lt and ge decided by the first pair that
--     is not two equal values (NULL when it holds a NULL):
--       1 (1,10): F F T F     2 (1,20): F T T T     3 (2,10): T T F T
--       4 (NULL,10): NULL NULL NULL NULL (the first pair holds the NULL)
--       5 (2,NULL): NULL T NULL T (ne: 2 <> 1 decides; ge: 2 > 1)
--       6 (3,30): F T F T
--   out_list: v (k, x) IN ((1, 20), (2, 10)), nv (k, x) NOT IN ((3, 30), (2, 20)):
--       1: F T   2: T T   3: T T   4 (NULL,10): NULL (meets (2,10) with
--       NULL) T (10 differs from 30 and 20)   5 (2,NULL): NULL NULL   6: F F
--   out_corr: the rows of t with p >= 10 * id, correlated: 1 sees (1,10)
--     (p >= 10); 6 sees nothing (p >= 60): 1. Inside, k and p are t's.
--   out_group: per t.k, COUNT(*) * 10: (1,10) (2,20) (3,10) (NULL,10):
--     (1,10) is in: 1; (2,10) meets (NULL,10) with NULL; (3,30) differs
--     from (3,10) but meets (NULL,10) with NULL: 1 only.
CREATE TABLE o (id INT, k INT, x INT) WITH (
  'connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE out_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_not_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in', 'format' = 'debezium-json');
CREATE TABLE out_not_in_nn (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in_nn', 'format' = 'debezium-json');
CREATE TABLE out_cmp (id INT, eq BOOLEAN, ne BOOLEAN, lt BOOLEAN, ge BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_cmp', 'format' = 'debezium-json');
CREATE TABLE out_list (id INT, v BOOLEAN, nv BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_list', 'format' = 'debezium-json');
CREATE TABLE out_corr (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_corr', 'format' = 'debezium-json');
CREATE TABLE out_group (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_group', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_in SELECT id FROM o WHERE (k, x) IN (SELECT k, p FROM t);
  INSERT INTO out_not_in SELECT id FROM o WHERE (k, x) NOT IN (SELECT k, p FROM t);
  INSERT INTO out_not_in_nn SELECT id FROM o
    WHERE NOT ((k, x) IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL));
  INSERT INTO out_cmp SELECT id, (k, x) = (2, 10), (k, x) <> (1, 10), (k, x) < (2, 10), ROW(k, x) >= ROW(1, 20) FROM o;
  INSERT INTO out_list SELECT id, (k, x) IN ((1, 20), (2, 10)), (k, x) NOT IN ((3, 30), (2, 20)) FROM o;
  INSERT INTO out_corr SELECT id FROM o WHERE (k, x) IN (SELECT k, p FROM t WHERE t.p >= 10 * o.id);
  INSERT INTO out_group SELECT id FROM o WHERE (k, x) IN (SELECT k, COUNT(*) * 10 FROM t GROUP BY k);
END;
