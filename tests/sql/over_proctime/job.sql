-- OVER ordered by a processing-time attribute orders a partition's rows by
-- their arrival, as Flink: ROWS frames and RANGE UNBOUNDED (the default
-- frame) give each row the aggregates over the rows that arrived before it
-- and itself, with no peers. The file is one split, so every partition
-- sees its rows in file order at any parallelism.
CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE rows_out (k STRING, v INT, s BIGINT, c BIGINT, mx INT) WITH ('connector' = 'print', 'print-identifier' = 'rows');
CREATE TABLE unb_out (k STRING, v INT, su BIGINT, prev INT) WITH ('connector' = 'print', 'print-identifier' = 'unbounded');
CREATE TABLE glob_out (v INT, g BIGINT, mn INT) WITH ('connector' = 'print', 'print-identifier' = 'global');
CREATE TABLE view_out (k STRING, v INT, d BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'view');
CREATE VIEW tv AS SELECT k, v, PROCTIME() AS p FROM (SELECT k, v FROM t);
EXECUTE STATEMENT SET BEGIN
INSERT INTO rows_out
SELECT k, v, SUM(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
INSERT INTO unb_out
SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt), LAG(v) OVER (PARTITION BY k ORDER BY pt) FROM t;
INSERT INTO glob_out
SELECT v, SUM(v) OVER w, MIN(v) OVER w FROM t WINDOW w AS (ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
INSERT INTO view_out
SELECT k, v, COUNT(DISTINCT v % 2) OVER (PARTITION BY k ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM tv;
END;
