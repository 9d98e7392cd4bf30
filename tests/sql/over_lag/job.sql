-- LAG(x [, offset [, default]]) OVER: the value offset rows back in the
-- partition (time order, arrival order within one timestamp), the default
-- (NULL if none) when there is no such row; a NULL value stays NULL. In a
-- ROWS frame every row sees the row before it; in a RANGE frame the rows of
-- one timestamp (3s) are taken in together and share one result, as in
-- Flink. LAG follows the partition, not a bounded frame.
CREATE TABLE t (k STRING, v INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE rows_out (k STRING, v INT, l1 INT, l2 INT, ld INT, ls STRING) WITH ('connector' = 'print', 'print-identifier' = 'rows');
CREATE TABLE range_out (k STRING, v INT, l1 INT, d INT) WITH ('connector' = 'print', 'print-identifier' = 'range');
CREATE TABLE bounded_out (k STRING, v INT, l2 INT, s BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'bounded');
EXECUTE STATEMENT SET BEGIN
INSERT INTO rows_out
SELECT k, v, LAG(v) OVER w, LAG(v, 2) OVER w, LAG(v, 1, -1) OVER w, lag(s, 1, 'none') OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
INSERT INTO range_out
SELECT k, v, LAG(v) OVER (PARTITION BY k ORDER BY ts), v - LAG(v, 1, 0) OVER (PARTITION BY k ORDER BY ts) FROM t;
INSERT INTO bounded_out
SELECT k, v, LAG(v, 2) OVER w, SUM(v) OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
END;
