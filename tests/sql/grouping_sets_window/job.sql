-- GROUPING SETS in a window aggregation: each window gets one row per
-- group of each set; NULL for the columns a set leaves out.
CREATE TABLE e (k STRING, c STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');

SELECT window_start, window_end, k, c, SUM(v) AS s, COUNT(*) AS n, GROUPING_ID(k, c) AS g
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, GROUPING SETS ((k, c), (k), ());
