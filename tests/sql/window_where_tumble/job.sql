-- A WHERE under a window table function filters the rows before the
-- window aggregation (it used to fail at run time: the filter declared the
-- window's virtual columns as its output). Rows that the WHERE drops still
-- moved the watermark at the source: (z, 1, 9000) makes (a, 500, 8500) late.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, v2 AS v * 2, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE snk (ws TIMESTAMP(3), k STRING, c BIGINT) WITH ('connector' = 'print');
INSERT INTO snk SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE v > 100 GROUP BY window_start, window_end, k;
-- a WHERE on a computed column, a projection of the window bounds, and HAVING
SELECT window_end, k, SUM(v) AS total, MAX(v2) + 1 AS m FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE v2 > 200 AND k <> 'z' GROUP BY window_start, window_end, k HAVING SUM(v) > 200;
