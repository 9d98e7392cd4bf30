-- SELECT DISTINCT * where two columns of the star have the same name and
-- no qualifier tells them apart: a subquery's duplicate output names
-- (SELECT k, k), a LATERAL subquery's column beside the table's, a
-- derived table without alias joined to a table. SELECT * takes them by
-- position; so must the grouping keys of SELECT DISTINCT * (each its own
-- column, not an ambiguous name).
CREATE TABLE t (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE u (k INT, c STRING) WITH ('connector' = 'filesystem', 'path' = 'u.json', 'format' = 'json');
CREATE TABLE o1 (k1 INT, k2 INT) WITH ('connector' = 'print', 'print-identifier' = 'dup');
CREATE TABLE o2 (k INT, b STRING, k2 INT, c STRING) WITH ('connector' = 'print', 'print-identifier' = 'lateral');
CREATE TABLE o3 (k INT, b STRING, k2 INT, bb STRING) WITH ('connector' = 'print', 'print-identifier' = 'derived');
EXECUTE STATEMENT SET BEGIN
INSERT INTO o1 SELECT DISTINCT * FROM (SELECT k, k + 1 AS k FROM t);
INSERT INTO o2 SELECT DISTINCT * FROM (SELECT k, b FROM t) x, LATERAL (SELECT k, c FROM u WHERE u.k >= x.k);
INSERT INTO o3 SELECT DISTINCT * FROM (SELECT k, b FROM t) x JOIN (SELECT k * 10 AS k, CASE c WHEN 'p' THEN 'x' ELSE 'y' END AS bb FROM u) ON x.b = bb;
END;
