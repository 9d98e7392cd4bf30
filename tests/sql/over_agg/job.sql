-- OVER aggregation: ROWS and RANGE frames, a named window, an expression
-- over OVER results, a WHERE before it, no PARTITION BY; the row at 3000
-- arrives after partition 'a' processed 4000 and is dropped as late.
CREATE TABLE t (k STRING, v BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'rides.csv', 'format' = 'csv');
CREATE TABLE rows_out (k STRING, v BIGINT, ms BIGINT, s BIGINT, c BIGINT, mx BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'rows');
CREATE TABLE range_out (k STRING, v BIGINT, ms BIGINT, s2 BIGINT, a2 BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'range');
CREATE TABLE unb_out (k STRING, v BIGINT, ms BIGINT, su BIGINT, x BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'unbounded');
CREATE TABLE glob_out (v BIGINT, ms BIGINT, g BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'global');
INSERT INTO rows_out
SELECT k, v, ms, SUM(v) OVER w AS s, COUNT(*) OVER w AS c, MAX(v) OVER w AS mx
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
INSERT INTO range_out
SELECT k, v, ms,
  SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS s2,
  AVG(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS a2
FROM t;
INSERT INTO unb_out
SELECT k, v, ms, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS su, v * 2 + COUNT(*) OVER (PARTITION BY k ORDER BY ts) AS x
FROM t WHERE v > 5;
INSERT INTO glob_out
SELECT v, ms, SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS g FROM t;
