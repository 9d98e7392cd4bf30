-- A row IN (SELECT x, y ...) used as a value (in the SELECT list, under OR
-- and NOT in WHERE, in CASE, in HAVING) runs as Flink's planner runs it
-- (Calcite's rewrite of IN into joined counts): TRUE when a row of the
-- subquery equals the row field by field; else FALSE over no rows; else
-- NULL when a field of the row, or a field of some row of the subquery, is
-- NULL; else FALSE. NOT IN is its NOT. The check folds the changelogs.
-- Worked by hand (o: id, k, x; t: k, p):
--   o: (1,1,10) (2,1,20) (3,2,10) (4,NULL,10) (5,2,NULL) (6,3,30)
--   t: (1,10) (2,20) (2,NULL) (3,30) (NULL,10)
--   out_sel: (k, x) IN / NOT IN all of t. t has rows with NULL fields, so
--     a row without a match is NULL: 1 (1,10) and 6 (3,30) match: TRUE /
--     FALSE; 2, 3, 4, 5 NULL / NULL.
--   out_nn: t's rows without NULLs, (1,10) (2,20) (3,30): 1 and 6 match
--     (TRUE / FALSE); 2 (1,20) and 3 (2,10) FALSE / TRUE; 4 (NULL,10) and
--     5 (2,NULL) have a NULL field: NULL / NULL.
--   out_none: WHERE p > 99 (no rows): FALSE / TRUE for every row, the
--     NULL fields of 4 and 5 too.
--   out_or: WHERE x = 30 OR NOT ((k, x) IN (t without NULLs)): 6 (x 30),
--     2 and 3 (NOT FALSE); 1 (NOT TRUE) and 4, 5 (NOT NULL) dropped.
--   out_case: CASE WHEN (k, x) NOT IN (t with p >= 20) THEN 'out'
--     ELSE 'in-or-unknown' END: the subquery (2,20) (3,30): 2 (1,20) and
--     1 (1,10) and 3 (2,10) 'out'; 6 matches, 4 and 5 NULL:
--     'in-or-unknown'.
--   out_having: per k, (k, MAX(x)) IN (t without NULLs), in HAVING and
--     in the SELECT list: k 1 (1,20): FALSE; k 2 (2,10): FALSE; k 3
--     (3,30): TRUE; k NULL (NULL,10): NULL. HAVING keeps k 3 only;
--     out_hsel lists all four groups.
--   out_corr: (k, x) IN (SELECT k, p FROM t WHERE t.p > o.id * 5),
--     correlated: 1 (p > 5) sees (1,10) (2,20) (3,30) (NULL,10): (1,10)
--     matches, TRUE; 2 (> 10) sees (2,20) (3,30): FALSE; 3 (> 15) (2,20) (3,30):
--     FALSE; 4 (> 20) (3,30): NULL (k NULL); 5 (> 25) (3,30): NULL (x
--     NULL); 6 (> 30) none: FALSE.
--   out_group: (k, x) IN (SELECT k, COUNT(*) * 10 FROM t GROUP BY k), a
--     subquery planned whole: (1,10) (2,20) (3,10) (NULL,10): 1 matches
--     (TRUE); the others NULL (the row (NULL,10) has a NULL field).
--   out_single: x IN (SELECT MAX(p) FROM t GROUP BY k), one column
--     planned whole: {10, 20, 30, 10}: TRUE for 1, 2, 3, 4, 6; 5 (x NULL)
--     NULL.
CREATE TABLE o (id INT, k INT, x INT) WITH (
  'connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE t (k INT, p INT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE out_sel (id INT, v BOOLEAN, nv BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_sel', 'format' = 'debezium-json');
CREATE TABLE out_nn (id INT, v BOOLEAN, nv BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_nn', 'format' = 'debezium-json');
CREATE TABLE out_none (id INT, v BOOLEAN, nv BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_none', 'format' = 'debezium-json');
CREATE TABLE out_or (id INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_or', 'format' = 'debezium-json');
CREATE TABLE out_case (id INT, c STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_case', 'format' = 'debezium-json');
CREATE TABLE out_having (k INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_having', 'format' = 'debezium-json');
CREATE TABLE out_hsel (k INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_hsel', 'format' = 'debezium-json');
CREATE TABLE out_corr (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_corr', 'format' = 'debezium-json');
CREATE TABLE out_group (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_group', 'format' = 'debezium-json');
CREATE TABLE out_single (id INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_single', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_sel SELECT id, (k, x) IN (SELECT k, p FROM t) AS v,
    (k, x) NOT IN (SELECT k, p FROM t) AS nv FROM o;
  INSERT INTO out_nn SELECT id, ROW(k, x) IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL) AS v,
    (k, x) NOT IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL) AS nv FROM o;
  INSERT INTO out_none SELECT id, (k, x) IN (SELECT k, p FROM t WHERE p > 99) AS v,
    (k, x) NOT IN (SELECT k, p FROM t WHERE p > 99) AS nv FROM o;
  INSERT INTO out_or SELECT id FROM o
    WHERE x = 30 OR NOT ((k, x) IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL));
  INSERT INTO out_case SELECT id,
    CASE WHEN (k, x) NOT IN (SELECT k, p FROM t WHERE p >= 20) THEN 'out' ELSE 'in-or-unknown' END AS c FROM o;
  INSERT INTO out_having SELECT k FROM o GROUP BY k
    HAVING (k, MAX(x)) IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL);
  INSERT INTO out_hsel SELECT k, (k, MAX(x)) IN (SELECT k, p FROM t WHERE k IS NOT NULL AND p IS NOT NULL) AS v
    FROM o GROUP BY k;
  INSERT INTO out_corr SELECT id, (k, x) IN (SELECT k, p FROM t WHERE t.p > o.id * 5) AS v FROM o;
  INSERT INTO out_group SELECT id, (k, x) IN (SELECT k, COUNT(*) * 10 FROM t GROUP BY k) AS v FROM o;
  INSERT INTO out_single SELECT id, x IN (SELECT MAX(p) FROM t GROUP BY k) AS v FROM o;
END;
