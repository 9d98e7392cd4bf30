-- A window that extends a named one, as in SQL (Calcite, Flink): OVER (w
-- ROWS ...) takes w's PARTITION BY and ORDER BY and adds a frame; a named
-- window may itself extend another (w2 AS (w ORDER BY pt)), adding the
-- ORDER BY that w lacks (its frame: the default, RANGE UNBOUNDED PRECEDING).
CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE a_out (k STRING, v INT, s BIGINT, c BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'framed');
CREATE TABLE b_out (k STRING, v INT, s BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'chained');
EXECUTE STATEMENT SET BEGIN
INSERT INTO a_out
SELECT k, v, SUM(v) OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), COUNT(*) OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t WINDOW w AS (PARTITION BY k ORDER BY pt);
INSERT INTO b_out
SELECT k, v, SUM(v) OVER w2 FROM t WINDOW w AS (PARTITION BY k), w2 AS (w ORDER BY pt);
END;
